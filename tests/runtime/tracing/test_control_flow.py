"""cond and while_loop: Python paths, staged nodes, structure/dtype/shape rules."""

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.ir.errors import StagingError
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.effects import print_
from runtime.tracing.tensor import Tensor
from tests.runtime.tracing import build


def run(graph, *args):
    compiled = compile_graph(graph)(*args)
    reference = interpret(graph, *args)
    for a, b in zip(compiled, reference):
        np.testing.assert_array_equal(a, b)
    return compiled


# -- cond ----------------------------------------------------------------------
def test_concrete_predicate_calls_one_branch():
    calls = []
    assert cond(True, lambda: calls.append("t") or 1, lambda: calls.append("f") or 2) == 1
    assert cond(np.bool_(False), lambda: 1, lambda: 2) == 2
    assert calls == ["t"]


def test_staged_cond_records_one_node_and_getitems():
    def f(x):
        return cond(x > 0, lambda: (x + 1, x * 2), lambda: (x - 1, x * 3), names=("a", "b"))

    graph = build(f, (np.int64, ()))
    ops = [n.op for n in graph.nodes]
    assert ops.count("cond") == 1 and ops.count("getitem") == 2
    assert [n.name for n in graph.nodes if n.op == "getitem"] == ["a", "b"]
    assert run(graph, np.int64(5)) == [6, 10]
    assert run(graph, np.int64(-5)) == [-6, -15]


def test_branches_are_traced_once_each():
    traced = []

    def f(x):
        return cond(x > 0, lambda: traced.append("t") or x, lambda: traced.append("f") or -x)

    graph = build(f, (np.int64, ()))
    for value in (1, -1, 2):
        run(graph, np.int64(value))
    assert traced == ["t", "f"]


def test_numeric_predicate_is_truthiness():
    graph = build(lambda x: cond(x, lambda: np.int64(1), lambda: np.int64(2)), (np.float64, ()))
    assert run(graph, np.float64(0.0)) == [2]
    assert run(graph, np.float64(0.5)) == [1]


def test_concrete_branch_results_become_constants_and_shapes_merge():
    def f(x):
        return cond(x.sum() > 0, lambda: np.zeros(3), lambda: x)

    graph = build(f, (np.float64, (None,)))
    out = [n for n in graph.nodes if n.op == "getitem"][0]
    assert out.type.shape == (None,)
    np.testing.assert_array_equal(run(graph, np.ones(3))[0], np.zeros(3))
    np.testing.assert_array_equal(run(graph, -np.ones(5))[0], -np.ones(5))


def test_none_leaves_are_allowed_in_both_branches():
    def f(x):
        a, b = cond(x > 0, lambda: (x, None), lambda: (-x, None))
        assert b is None
        return a

    assert run(build(f, (np.int64, ())), np.int64(-3)) == [3]


def test_none_in_one_branch_only_is_an_error():
    with pytest.raises(StagingError, match="'y' is None in the false branch"):
        build(lambda x: cond(x > 0, lambda: (x, x), lambda: (x, None), names=("x", "y"))[0],
              (np.int64, ()))


def test_different_structures_are_an_error():
    with pytest.raises(StagingError, match=r"different structures.*\(\*, \*\).*\(\*,\)"):
        build(lambda x: cond(x > 0, lambda: (x, x), lambda: (x,)), (np.int64, ()))


def test_dtype_mismatch_names_the_variable_types_and_fix():
    def f(x):
        return cond(x > 0, lambda: (x, x + 1), lambda: (x, x + 0.5), names=("a", "y"))

    with pytest.raises(StagingError) as info:
        build(f, (np.int64, ()))
    message = str(info.value)
    assert "'y' is int64[] in the true branch but float64[]" in message
    assert "y.astype(np.float64)" in message
    assert "test_control_flow.py" in message


def test_non_scalar_predicate_is_an_error():
    with pytest.raises(StagingError, match="must be a scalar.*np.any"):
        build(lambda x: cond(x > 0, lambda: x, lambda: -x), (np.int64, (3,)))


def test_effects_in_a_branch_happen_only_when_it_is_taken(capsys):
    def f(x):
        def yes():
            print_("positive")
            return x

        def no():
            print_("negative")
            return -x

        return cond(x > 0, yes, no)

    graph = build(f, (np.int64, ()))
    capsys.readouterr()
    compile_graph(graph)(np.int64(1))
    compile_graph(graph)(np.int64(-1))
    compile_graph(graph)(np.int64(2))
    assert capsys.readouterr().out == "positive\nnegative\npositive\n"


def test_branches_capture_outer_tensors_at_any_depth():
    def f(x, y):
        def outer_true():
            return cond(y > 0, lambda: x * y, lambda: x - y)

        return cond(x > 0, outer_true, lambda: y)

    graph = build(f, (np.int64, ()), (np.int64, ())).verify()
    assert run(graph, np.int64(2), np.int64(3)) == [6]
    assert run(graph, np.int64(2), np.int64(-3)) == [5]
    assert run(graph, np.int64(-2), np.int64(7)) == [7]


# -- while_loop ------------------------------------------------------------------
def test_python_while_loop_outside_a_trace():
    assert while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (0, 0)) == (5, 10)
    assert while_loop(lambda i: True, lambda i: (i + 1,), (0,), maximum_iterations=3) == (3,)


def collatz(n):
    def body(n, steps):
        n = cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1, names=("n",))
        return n, steps + 1

    return while_loop(lambda n, steps: n != 1, body, (n, 0), names=("n", "steps"))[1]


def test_staged_collatz_loop():
    graph = build(collatz, (np.int64, ()), names=("n",))
    assert [n.op for n in graph.nodes].count("while") == 1
    assert run(graph, np.int64(27)) == [111]
    assert run(graph, np.int64(1)) == [0]


def test_loop_body_is_traced_once():
    traced = []

    def f(x):
        def body(i):
            traced.append(1)
            return (i + 1,)

        return while_loop(lambda i: i < x, body, (0,))[0]

    graph = build(f, (np.int64, ()))
    assert run(graph, np.int64(10)) == [10]
    assert len(traced) == 1


def test_dtype_change_is_an_error_that_suggests_the_initial_value():
    def f(x):
        return while_loop(lambda v: v < x, lambda v: (v + 0.5,), (0,), names=("x",))[0]

    with pytest.raises(StagingError) as info:
        build(f, (np.float64, ()))
    message = str(info.value)
    assert "x starts as int64 but the loop makes it float64" in message
    assert "initialise it as 0.0 or x.astype(np.float64)" in message.lower()


def test_changing_shapes_generalise_to_none():
    def f(x):
        return while_loop(
            lambda v: v.sum() < 100,
            lambda v: (np.concatenate([v, v]),), (x,), names=("v",),
        )[0]

    graph = build(f, (np.float64, (2,)))
    loop = next(n for n in graph.nodes if n.op == "while")
    assert loop.type[0].shape == (None,)
    out = run(graph, np.ones(2))[0]
    assert out.shape == (128,)


def test_shape_invariants_fix_a_shape():
    def grow(x):
        return while_loop(lambda v: v.sum() < 100, lambda v: (np.concatenate([v, v]),), (x,),
                          shape_invariants=[(x, (2,))], names=("v",))[0]

    with pytest.raises(StagingError, match="shape invariant"):
        build(grow, (np.float64, (2,)))

    def relaxed(x):
        return while_loop(lambda v: v.sum() < 100, lambda v: (v * 2,), (x,),
                          shape_invariants=[(x, (None,))], names=("v",))[0]

    graph = build(relaxed, (np.float64, (2,)))
    assert next(n for n in graph.nodes if n.op == "while").type[0].shape == (None,)


def test_maximum_iterations_bounds_the_loop():
    graph = build(lambda x: while_loop(lambda i: i < 100, lambda i: (i + 1,), (x,),
                                       maximum_iterations=7)[0], (np.int64, ()))
    assert run(graph, np.int64(0)) == [7]
    assert run(graph, np.int64(98)) == [100]


def test_loop_captures_outer_tensors_in_nested_bodies():
    def f(x, limit):
        def outer_body(i, total):
            inner = while_loop(lambda j, s: j < limit, lambda j, s: (j + 1, s + x), (0, 0))[1]
            return i + 1, total + inner

        return while_loop(lambda i, t: i < limit, outer_body, (0, 0))[1]

    graph = build(f, (np.int64, ()), (np.int64, ())).verify()
    assert run(graph, np.int64(2), np.int64(4)) == [32]


def test_loop_condition_with_several_nodes():
    def f(x):
        return while_loop(lambda v: (v * v).sum() < 50, lambda v: (v + 1,), (x,))[0]

    graph = build(f, (np.int64, (2,)))
    assert "while np.add.reduce(loop_var * loop_var, None) < 50:" in compile_graph(graph).source  # one expression
    np.testing.assert_array_equal(run(graph, np.array([0, 1]))[0], [5, 6])


def test_loop_condition_that_is_no_single_expression():
    def f(x):
        def test(v):
            square = v * v
            return square.sum() < square.max() + 10

        return while_loop(test, lambda v: (v + 1,), (x,))[0]

    graph = build(f, (np.int64, (2,)))
    assert "while True:" in compile_graph(graph).source  # `square` is used twice: a statement of its own
    np.testing.assert_array_equal(run(graph, np.array([0, 1]))[0], [4, 5])


def test_loop_results_are_tensors_with_the_loop_types():
    def f(x):
        result = while_loop(lambda v: v < 3, lambda v: (v + 1,), [x])
        assert isinstance(result[0], Tensor) and result[0].dtype == np.int64
        return result[0]

    assert run(build(f, (np.int64, ())), np.int64(0)) == [3]


def test_loop_test_effects_run_once_per_check_even_with_a_limit(capsys):
    def f(x):
        def test(i):
            print_("test", i)
            return i < 100

        return while_loop(test, lambda i: (i + 1,), (x,), maximum_iterations=2)[0]

    graph = build(f, (np.int64, ()))
    capsys.readouterr()
    assert compile_graph(graph)(np.int64(0)) == [2]
    compiled = capsys.readouterr().out
    interpret(graph, np.int64(0))
    assert compiled == capsys.readouterr().out == "test 0\ntest 1\n"


def test_python_numbers_in_a_branch_take_the_other_branch_dtype():
    graph = build(lambda x: cond(x.sum() > 0, lambda: x, lambda: 0.0), (np.float32, ()))
    out = run(graph, np.float32(-1))[0]
    assert out == 0.0 and out.dtype == np.float32
    mixed = build(lambda x: cond(x > 0, lambda: 1, lambda: 0.5), (np.int64, ()))
    assert run(mixed, np.int64(1))[0].dtype == np.float64
    with pytest.raises(StagingError, match="int64.*float64"):
        build(lambda x: cond(x > 0, lambda: x, lambda: 0.5), (np.int64, ()))


def test_maximum_iterations_may_be_a_tensor():
    def f(x, limit):
        return while_loop(lambda i: i < 100, lambda i: (i + 1,), (x,), maximum_iterations=limit)[0]

    graph = build(f, (np.int64, ()), (np.int64, ()))
    assert run(graph, np.int64(0), np.int64(4)) == [4]
    assert run(graph, np.int64(98), np.int64(10)) == [100]
