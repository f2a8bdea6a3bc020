"""py_function's declared result shapes (`shape=`), checked at every run (issue 21, item 10)."""

import numpy as np
import pytest

import autograph as ag
from autograph.errors import InvalidArgumentError, StagingError
from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.ir.types import TensorType
from runtime.tracing.effects import py_function
from tests.runtime.tracing import build


def test_an_accumulated_py_function_result_with_a_declared_scalar_shape_stages_in_a_loop():
    def double(v):
        return v * 2.0

    @ag.function
    def total_of(x):
        total = 0.0
        for v in x:
            total += ag.py_function(double, [v], np.float64, shape=())
        return total

    assert total_of(np.arange(4.0)) == 12.0
    assert total_of(np.arange(5.0)) == 20.0


def test_without_a_declared_shape_the_loop_error_reads_as_unknown_rank_and_names_the_fix():
    @ag.function
    def total_of(x):
        total = 0.0
        for v in x:
            total += ag.py_function(lambda u: u, [v], np.float64)
        return total

    with pytest.raises(StagingError) as info:
        total_of(np.arange(3.0))
    message = str(info.value)
    assert "float64[<unknown rank>]" in message and "[?]" not in message
    assert "shape=()" in message


def test_declared_shapes_type_the_results():
    graph = build(lambda x: py_function(lambda v: v, [x], np.float32, shape=(None, 3)), (np.float32, (2, 3)))
    assert graph.outputs[0].type == TensorType(np.float32, (None, 3))
    graph = build(
        lambda x: py_function(lambda v: (v, v.sum()), [x], [np.float64, np.int64], shape=[(2,), ()]),
        (np.float64, (2,)),
    )
    assert [n.type for n in graph.outputs] == [TensorType(np.float64, (2,)), TensorType(np.int64, ())]


@pytest.mark.parametrize("run", [lambda g, *a: compile_graph(g)(*a), lambda g, *a: interpret(g, list(a))])
def test_a_result_of_another_shape_is_an_invalid_argument_error_naming_the_line(run):
    graph = build(lambda x: py_function(lambda v: np.ones(3), [x], np.float64, shape=(2,)), (np.float64, ()))
    with pytest.raises(InvalidArgumentError) as info:
        run(graph, np.float64(1.0))
    message = str(info.value)
    assert "has shape (3,)" in message and "declares (2,)" in message
    assert "test_py_function_shapes.py" in message


def test_a_declared_none_dimension_accepts_any_size():
    graph = build(lambda x: py_function(lambda v: np.ones(int(v)), [x], np.float64, shape=(None,)), (np.int64, ()))
    fn = compile_graph(graph)
    assert fn(np.int64(2))[0].shape == (2,)
    assert fn(np.int64(5))[0].shape == (5,)


def test_shapes_are_checked_outside_a_trace_too():
    assert py_function(lambda v: v + 1, [np.zeros(2)], np.float64, shape=(2,)).shape == (2,)
    with pytest.raises(InvalidArgumentError, match=r"result 1 of the py_function"):
        py_function(lambda v: (v, v), [np.zeros(2)], [np.float64, np.float64], shape=[(2,), ()])


@pytest.mark.parametrize("shape", [(-1,), (1.5,), "3", (True,)])
def test_a_malformed_shape_is_refused_with_the_accepted_forms(shape):
    with pytest.raises(TypeError, match=r"shape= must be a tuple of sizes and Nones"):
        py_function(lambda v: v, [1.0], np.float64, shape=shape)


def test_several_results_need_one_shape_each():
    with pytest.raises(TypeError, match=r"one shape per result"):
        py_function(lambda v: (v, v), [1.0], [np.float64, np.float64], shape=[(2,)])


def test_unknown_rank_prints_as_unknown_and_unknown_dimensions_as_none():
    assert str(TensorType(np.float64, None)) == "float64[<unknown rank>]"
    assert str(TensorType(np.float32, (None, 3))) == "float32[None, 3]"
    assert TensorType(np.float64, None).shape_str() == "<unknown>"  # signatures: shape=<unknown>
