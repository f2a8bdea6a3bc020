"""The reference interpreter: direct evaluation that the compiler is checked against."""

import numpy as np
from hypothesis import given, settings

from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret, run_graph
from runtime.tracing.control_flow import cond, while_loop
from tests.runtime.random_programs import programs, run_program
from tests.runtime.tracing import build, outputs_equal


def test_straight_line_graph():
    graph = build(lambda x, y: (x * y + 1, np.sum(x)), (np.int64, (3,)), (np.int64, ()))
    out = interpret(graph, np.array([1, 2, 3]), np.int64(2))
    np.testing.assert_array_equal(out[0], [3, 5, 7])
    assert out[1] == 6 and type(out[1]) is np.int64


def test_python_values_are_converted():
    graph = build(lambda x: x + 1, (np.int64, ()))
    assert interpret(graph, 41) == [42]


def test_cond_runs_only_the_taken_branch():
    graph = build(lambda x: cond(x > 0, lambda: x * 10, lambda: x - 10), (np.int64, ()))
    assert interpret(graph, 2) == [20]
    assert interpret(graph, -2) == [-12]


def test_while_with_maximum_iterations():
    graph = build(lambda x: while_loop(lambda v: v < 1000, lambda v: (v * 2,), (x,),
                                       maximum_iterations=3)[0], (np.int64, ()))
    assert interpret(graph, 1) == [8]


def test_run_graph_returns_raw_values():
    graph = build(lambda x: x * 2, (np.float64, ()))
    assert run_graph(graph, [np.asarray(2.0)], {}) == [4.0]


@settings(max_examples=40, deadline=None)
@given(programs)
def test_unoptimised_compiler_matches_the_interpreter(steps):
    graph = build(lambda x, y: run_program(steps, x, y), (np.float64, (3,)), (np.float64, (3,)))
    x, y = np.array([1.0, -0.5, 0.0]), np.array([-2.0, 3.0, 0.125])
    assert outputs_equal(interpret(graph, x, y), compile_graph(graph, optimize=False)(x, y))
