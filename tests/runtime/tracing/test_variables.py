"""Variable: eager state, staged reads and assigns in order, weak capture, creation tracking."""

import copy
import gc

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.ir.errors import FailedPreconditionError, StagingError
from runtime.tracing.control_flow import while_loop
from runtime.tracing.variables import Variable, creation_scope
from tests.runtime.tracing import build


def test_eager_variable_behaves_like_its_value():
    v = Variable(1.0, name="v")
    assert v.dtype == np.float64 and v.shape == () and v.name == "v"
    assert v.assign(2.0) is v and v.numpy() == 2.0
    assert v.assign_add(3).numpy() == 5.0
    assert v.assign_sub(1).numpy() == 4.0
    assert v + 1 == 5.0 and 1 - v == -3.0 and v * v == 16.0
    assert np.sqrt(v) == 2.0 and float(v) == 4.0
    assert np.asarray(Variable([1, 2])).tolist() == [1, 2]
    assert np.sum(Variable([1, 2, 3])) == 6
    assert v.read_value() == 4.0


def test_dtype_argument_and_shape_is_kept():
    v = Variable([1, 2], dtype=np.float32)
    assert v.dtype == np.float32
    with pytest.raises(ValueError, match="keeps its shape"):
        v.assign([1, 2, 3])


def test_staged_reads_and_assigns_keep_program_order():
    v = Variable(1.0, name="v")

    def f(x):
        before = v + 0.0
        v.assign_add(x)
        after = v * 1.0
        return before, after

    graph = build(f, (np.float64, ()))
    fn = compile_graph(graph)
    assert fn(np.float64(2.0)) == [1.0, 3.0]
    assert fn(np.float64(2.0)) == [3.0, 5.0]
    assert v.numpy() == 5.0
    source = fn.source
    assert source.index("read_variable") < source.index("assign_variable") < source.rindex("read_variable")


def test_reads_are_not_merged_across_assigns_by_the_optimiser():
    v = Variable(0, name="counter")

    def f(x):
        a = v.read_value()
        v.assign(x)
        b = v.read_value()
        return a, b

    fn = compile_graph(build(f, (np.int64, ())))
    assert fn(np.int64(7)) == [0, 7]
    assert fn(np.int64(9)) == [7, 9]


def test_assign_in_a_loop_runs_every_iteration():
    total = Variable(0, name="total")

    def f(n):
        def body(i):
            total.assign_add(i)
            return (i + 1,)

        return while_loop(lambda i: i < n, body, (0,))[0]

    graph = build(f, (np.int64, ()))
    compile_graph(graph)(np.int64(5))
    assert total.numpy() == 10
    interpret(graph, np.int64(5))
    assert total.numpy() == 20


def test_unused_reads_are_dropped_but_assigns_are_kept():
    v = Variable(1, name="v")

    def f(x):
        v.read_value()
        v.assign(x)
        return x

    source = compile_graph(build(f, (np.int64, ()))).source
    assert "read_variable" not in source and "assign_variable" in source


def test_garbage_collected_variable_raises_failed_precondition():
    holder = {"weights": Variable(1.0, name="weights")}
    graph = build(lambda x: x + holder["weights"], (np.float64, ()))
    fn = compile_graph(graph)
    assert fn(np.float64(1)) == [2.0]
    holder.clear()
    gc.collect()
    with pytest.raises(FailedPreconditionError, match=r"'weights' used at .*test_variables.py:\d+"):
        fn(np.float64(1))


def test_creation_scope_collects_variables():
    with creation_scope() as outer:
        a = Variable(1)
        with creation_scope() as inner:
            b = Variable(2)
    Variable(3)
    assert outer == [a, b] and inner == [b]


def test_a_variable_from_a_staged_value_is_set_by_the_graph_once():
    made = []

    def f(x):
        made.append(Variable(x * 2))
        return made[0].assign_add(x).read_value()

    graph = build(f, (np.float64, ()))
    assert [n.op for n in graph.nodes if "variable" in n.op] == [
        "initialize_variable", "assign_variable", "read_variable"]
    assert not made[0].is_initialized
    run = compile_graph(graph)
    assert run(np.float64(1.0))[0] == 3.0  # initialised to 2, then 1 added
    assert made[0].is_initialized
    assert run(np.float64(10.0))[0] == 13.0  # the initial value is not taken again
    assert interpret(graph, np.float64(1.0))[0] == 14.0


def test_assigning_an_incompatible_dtype_is_a_staging_error():
    v = Variable(1, name="count")
    with pytest.raises(StagingError, match="float64 value to the int64 Variable 'count'"):
        build(lambda x: v.assign(x), (np.float64, ()))



@pytest.mark.parametrize("assign", ["assign", "assign_add", "assign_sub"])
def test_eager_assign_of_an_incompatible_dtype_fails_as_in_a_trace(assign):
    v = Variable(np.zeros(2, np.int32), name="count")
    with pytest.raises(StagingError, match=f"^{__file__}:\\d+: cannot assign a float64 value to the int32"):
        getattr(v, assign)(np.array([1.5, 2.5]))
    np.testing.assert_array_equal(v.numpy(), [0, 0])  # not truncated to [1, 2]
    getattr(v, assign)(np.array([1, 2], np.int8))  # a cast within the kind is fine


def test_numpy_functions_and_operators_on_a_variable_are_staged_reads():
    v = Variable([1.0, 4.0], name="scale")

    def f(x):
        return np.sqrt(v) * x, x - v, np.sum(v)

    graph = build(f, (np.float64, (2,)))
    assert [n.op for n in graph.nodes].count("read_variable") == 3
    fn = compile_graph(graph)
    v.assign([4.0, 9.0])
    out = fn(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(out[0], [2.0, 6.0])
    np.testing.assert_array_equal(out[1], [-3.0, -7.0])
    assert out[2] == 13.0


def test_a_returned_variable_value_is_a_copy():
    v = Variable(np.zeros(2), name="state")
    out = compile_graph(build(lambda x: (v.read_value(), x), (np.int64, ())))(np.int64(0))[0]
    out += 1
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])



def test_copy_is_the_variable_and_deepcopy_a_new_one_with_the_value():
    v = Variable(np.float32(1.5), name="w")
    assert copy.copy(v) is v
    twin = copy.deepcopy(v)
    assert twin is not v and (twin.name, twin.dtype, twin.numpy()) == ("w", np.float32, 1.5)
    twin.assign(4.0)
    assert v.numpy() == 1.5
    pair = copy.deepcopy([v, v])  # the memo keeps one object one object
    assert pair[0] is pair[1] and pair[0] is not v


def test_deepcopy_in_a_trace_creates_a_variable_there():
    v = Variable(2.0)
    made = []

    def f(x):
        with creation_scope() as created:
            twin = copy.deepcopy(v)  # the copy's origin: this line, not copy.py's
        made.extend(created)
        return twin.assign_add(x).read_value() + v

    run = compile_graph(build(f, (np.float64, ())))
    assert made and made[0] is not v
    assert made[0]._origin.file == __file__ and "copy.deepcopy(v)" in made[0]._origin.text
    assert run(np.float64(1.0))[0] == 5.0  # the copy starts at 2 and becomes 3; v stays 2
    assert run(np.float64(1.0))[0] == 6.0
    assert v.numpy() == 2.0
