"""Row layout: which transposed views a loop reads every row of, and the code that copies them."""

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph, to_source
from runtime.backends.numpy.interpret import interpret
from runtime.backends.numpy.row_layout import walked_views
from runtime.passes import optimize
from runtime.tracing.control_flow import cond, while_loop
from tests.runtime.tracing import build, outputs_equal

X = np.arange(2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3) / 10


def rows_sum(x, limit=5, step=1, start=0, view=lambda x: np.transpose(x, (1, 0, 2)), **options):
    """Sum of the rows of a view of x, read by a counted loop."""
    t = view(x)
    total = np.zeros((2, 3), np.float32)
    return while_loop(
        lambda i, acc: i < limit, lambda i, acc: (i + step, np.tanh(acc + t[i])), (start, total), **options
    )[1]


def source_and_check(fn):
    graph = build(fn, (np.float32, (2, 5, 3)))
    expected = interpret(optimize(graph), X)
    assert outputs_equal(compile_graph(graph)(X), expected)
    return to_source(graph)


def test_a_view_a_loop_reads_row_by_row_is_made_contiguous_once():
    source = source_and_check(rows_sum)
    assert "    transpose = np.ascontiguousarray(np.transpose(x, (1, 0, 2)))\n" in source
    assert source.count("ascontiguousarray") == 1
    assert "transpose[loop_var]" in source


def test_walked_views_names_the_view_node():
    graph = optimize(build(rows_sum, (np.float32, (2, 5, 3))))
    assert [n.op for n in walked_views(graph)] == ["transpose"]
    assert all(walked_views(sub) == [] for n in graph.nodes if n.op == "while" for sub in n.attrs.values()
               if hasattr(sub, "nodes"))


@pytest.mark.parametrize("variant", [
    dict(limit=3),  # reads some rows only
    dict(limit=4, start=1),  # does not start at 0
    dict(limit=6, step=2),  # skips rows
    dict(maximum_iterations=2),  # may stop early
    dict(view=lambda x: np.tanh(x).reshape(5, 2, 3)),  # already contiguous
])
def test_loops_that_may_not_read_every_row_keep_the_view(variant):
    source = source_and_check(lambda x: rows_sum(x, **variant))
    assert "ascontiguousarray" not in source


def test_a_row_read_in_a_branch_keeps_the_view():
    def f(x):
        t = np.transpose(x, (1, 0, 2))
        total = np.zeros((2, 3), np.float32)

        def body(i, acc):
            return i + 1, cond(np.sum(acc) < 100, lambda: acc + t[i], lambda: acc)

        return while_loop(lambda i, acc: i < 5, body, (0, total))[1]

    assert "ascontiguousarray" not in source_and_check(f)


def test_other_views_and_a_break_flag():
    swapped = source_and_check(lambda x: rows_sum(x, view=lambda x: np.swapaxes(x, 0, 1)))
    assert "np.ascontiguousarray(np.swapaxes(x, 0, 1))" in swapped

    def with_flag(x):
        t = np.transpose(x, (1, 0, 2))
        total = np.zeros((2, 3), np.float32)
        return while_loop(
            lambda i, acc, done: (i < 5) & ~done,
            lambda i, acc, done: (i + 1, acc + t[i], np.sum(acc) > 3),
            (0, total, False),
        )[1]

    assert "ascontiguousarray" not in source_and_check(with_flag)
