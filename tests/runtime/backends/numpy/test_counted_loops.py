"""Counted loops: trip counts, and TensorArray writes the code generator prints as list stores."""

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph, to_source
from runtime.backends.numpy.counted_loops import counters, in_bounds_writes
from runtime.backends.numpy.interpret import interpret
from runtime.ir.errors import InvalidArgumentError
from runtime.passes import optimize
from runtime.tracing.control_flow import while_loop
from runtime.tracing.tensor_array import TensorArray
from tests.runtime.tracing import build, outputs_equal


def squares(x, size=5, limit=5, at=lambda i: i, value=lambda i, x: x * i, **options):
    """Writes value(i) at at(i) for i < limit into a TensorArray of `size` elements."""
    ta = TensorArray(np.float64, size=size)
    _, ta = while_loop(
        lambda i, ta: i < limit, lambda i, ta: (i + 1, ta.write(at(i), value(i, x))), (0, ta),
        names=("i", "states"), **options,
    )
    return ta.stack()


def test_a_counted_loop_writes_a_big_enough_array_with_a_list_store():
    graph = build(squares, (np.float64, ()))
    source = to_source(graph)
    assert "        states[i] = multiply\n" in source and "ta_write" not in source
    assert "        i = i_1\n" in source and "states =" not in source.split("while")[1]  # the same list, carried
    expected = [np.arange(5) * 1.5]
    assert outputs_equal(compile_graph(graph)(np.float64(1.5)), expected)
    assert outputs_equal(interpret(graph, np.float64(1.5)), expected)


def test_counters_give_the_trip_count():
    graph = optimize(build(squares, (np.float64, ())))
    [(loop, counter, count)] = counters(graph)
    assert loop.op == "while" and counter.name == "i" and count == 5
    assert [n.op for n in in_bounds_writes(graph)] == ["ta_write"]


@pytest.mark.parametrize("variant", [
    dict(at=lambda i: 4 - i),  # not at the counter
    dict(value=lambda i, x: i),  # an int64 value: ta_write converts it
    dict(maximum_iterations=5),  # not a counted loop
    dict(at=lambda i: i * 1),  # not at the counter itself
])
def test_other_writes_keep_the_checked_call(variant):
    graph = build(lambda x: squares(x, **variant), (np.float64, ()))
    assert "ta_write(" in to_source(graph)
    assert outputs_equal(compile_graph(graph)(np.float64(2.0)), interpret(graph, np.float64(2.0)))


def test_a_write_past_the_end_still_fails_at_run_time():
    graph = build(lambda x: squares(x, size=3), (np.float64, ()))
    assert "ta_write(" in to_source(graph)
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        compile_graph(graph)(np.float64(1.0))


def rows_into_array(x, after=False):
    """Copies the rows of x into a TensorArray: the counter is only ever an index."""
    ta = TensorArray(np.float64, size=4)
    i, ta = while_loop(
        lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(i, np.tanh(x[i]))), (0, ta), names=("i", "states"),
    )
    return (ta.stack(), i) if after else ta.stack()


def test_a_counter_used_only_as_an_index_counts_in_python_ints():
    graph = build(rows_into_array, (np.float64, (4, 3)))
    source = to_source(graph)
    assert "    i = 0\n" in source and "        states[i] = tanh\n" in source
    x = np.arange(12.0).reshape(4, 3)
    assert outputs_equal(compile_graph(graph)(x), [np.tanh(x)])
    assert outputs_equal(interpret(optimize(graph), x), [np.tanh(x)])


def test_a_counter_read_after_the_loop_stays_a_numpy_integer():
    graph = build(lambda x: rows_into_array(x, after=True), (np.float64, (4, 3)))
    assert "i = np.int64(0)" in to_source(graph)
    _, count = compile_graph(graph)(np.ones((4, 3)))
    assert count == 4 and type(count) is np.int64


def test_a_counter_used_as_a_value_stays_a_numpy_integer():
    assert "i = np.int64(0)" in to_source(build(squares, (np.float64, ())))
