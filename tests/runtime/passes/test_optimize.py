"""Optimisation passes: folding, CSE, DCE, each semantics-preserving (differential tests)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.passes import (
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fold_constants,
    optimize,
)
from runtime.tracing.constant import constant
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.effects import print_
from runtime.tracing.variables import Variable
from tests.runtime.random_programs import programs, run_program
from tests.runtime.tracing import build, outputs_equal


def ops(graph):
    return [n.op for n in graph.nodes]


def test_folding_computes_constant_subexpressions():
    graph = build(lambda x: x + constant(2) * constant(3), (np.int64, ()))
    folded = fold_constants(graph).verify()
    assert ops(folded).count("multiply") == 0
    assert "np.int64(6)" in compile_graph(graph).source
    assert compile_graph(graph)(np.int64(1)) == [7]


def test_folding_leaves_big_arrays_and_warnings_to_run_time():
    graph = build(lambda x: x + np.zeros(5000) * constant(2.0), (np.float64, (5000,)))
    assert "multiply" in ops(fold_constants(graph))
    warns = build(lambda x: x + constant(1.0) / constant(0.0), (np.float64, ()))
    assert "divide" in ops(fold_constants(warns))


def test_folding_goes_inside_branches_through_captured_constants():
    def f(x):
        two = constant(2)
        return cond(x > 0, lambda: x + two * two, lambda: x)

    folded = optimize(build(f, (np.int64, ()))).verify()
    branch = next(n for n in folded.nodes if n.op == "cond").attrs["true"]
    assert "multiply" not in ops(branch)


def test_passes_with_nothing_to_change_return_the_graph_as_is():
    def f(x):
        return cond(x > 0, lambda: x * 2, lambda: x + 1)

    graph = build(f, (np.int64, ()))
    assert fold_constants(graph) is graph
    assert eliminate_common_subexpressions(graph) is graph
    assert eliminate_dead_code(graph) is graph
    assert optimize(graph) is graph
    dead = build(lambda x: (x * 2, x)[1], (np.int64, ()))
    assert eliminate_dead_code(dead) is not dead


def test_dce_of_outer_nodes_only_shares_the_rest():
    """Dead nodes only in the outer graph: the result holds the same nodes and subgraphs."""

    def f(x):
        unused = np.sum(x) > 1  # like a loop test evaluated once before staging
        del unused
        return while_loop(lambda i, total: i < 3, lambda i, total: (i + 1, total + x), (0, x))[1]

    graph = build(f, (np.float64, (2,)))
    cleaned = eliminate_dead_code(graph).verify()
    assert "sum" not in ops(cleaned) and "greater" not in ops(cleaned)
    assert set(cleaned.nodes) < set(graph.nodes)
    loop = next(n for n in cleaned.nodes if n.op == "while")
    assert loop in graph.nodes
    x = np.array([1.0, 2.0])
    assert outputs_equal(compile_graph(graph)(x), [x * 4])
    assert outputs_equal(interpret(cleaned, x), [x * 4])


def test_cse_merges_repeated_pure_nodes():
    graph = build(lambda x: (x * 2) + (x * 2), (np.int64, ()))
    merged = eliminate_common_subexpressions(graph).verify()
    assert ops(merged).count("multiply") == 1
    assert compile_graph(graph)(np.int64(3)) == [12]


def test_cse_tells_signed_zeros_and_bool_from_int_apart():
    graph = build(lambda x: (x * 0.0, x * -0.0, x + True, x + 1), (np.float64, ()))
    merged = eliminate_common_subexpressions(graph)
    assert ops(merged).count("multiply") == 2 and ops(merged).count("add") == 2


def test_cse_never_merges_effects_or_variable_reads():
    v = Variable(1, name="v")

    def f(x):
        print_(x)
        print_(x)
        a = v.read_value()
        v.assign(x)
        return a + v.read_value()

    merged = eliminate_common_subexpressions(build(f, (np.int64, ())))
    assert ops(merged).count("print") == 2 and ops(merged).count("read_variable") == 2


def test_cse_never_merges_two_new_tensor_arrays():
    """Two empty TensorArrays of one size are two arrays: their writes give each its element type."""
    from runtime.tracing.tensor_array import TensorArray

    def f(x):
        a = TensorArray(np.int64, size=2).write(0, constant(np.int64(1)))
        b = TensorArray(np.float64, size=2).write(0, x)
        return a.read(0), b.read(0)

    merged = eliminate_common_subexpressions(build(f, (np.float64, ())))
    assert ops(merged).count("ta_new") == 2


def test_dce_drops_unused_nodes_and_keeps_effects():
    def f(x):
        unused = np.tanh(x) * 3  # noqa: F841
        print_(x)
        return x

    cleaned = eliminate_dead_code(build(f, (np.float64, ()))).verify()
    assert ops(cleaned) == ["input", "print"]


def test_dce_removes_a_pure_cond_nobody_reads_and_what_only_it_captured():
    def f(x):
        only_branch = np.exp(x)
        cond(x > 0, lambda: only_branch + 1, lambda: x)
        return x

    cleaned = eliminate_dead_code(build(f, (np.float64, ())))
    assert ops(cleaned) == ["input"]


def test_dce_keeps_a_cond_with_an_effect_and_its_captures():
    def f(x):
        shown = np.exp(x)
        cond(x > 0, lambda: (print_(shown), x)[1], lambda: x)
        return x

    cleaned = eliminate_dead_code(build(f, (np.float64, ()))).verify()
    assert "cond" in ops(cleaned) and "exp" in ops(cleaned)


def test_dce_inside_loop_bodies():
    def f(x):
        def body(v):
            np.sin(v)
            return (v + 1,)

        return while_loop(lambda v: v < 10, body, (x,))[0]

    cleaned = eliminate_dead_code(build(f, (np.float64, ())))
    body = next(n for n in cleaned.nodes if n.op == "while").attrs["body"]
    assert "sin" not in ops(body)


@settings(
    max_examples=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(steps=programs)
def test_optimised_compiled_graph_matches_the_interpreted_original(steps, capsys):
    variable = Variable(0.0, name="acc")
    graph = build(lambda x, y: run_program(steps, x, y, variable), (np.float64, (3,)), (np.float64, (3,)))
    optimized = optimize(graph).verify()
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25, -0.75])
    capsys.readouterr()
    variable.assign(0.0)
    expected = interpret(graph, x, y)
    expected_out = capsys.readouterr().out
    variable.assign(0.0)
    got = compile_graph(graph)(x, y)
    assert outputs_equal(expected, got), (optimized.to_source() if optimized.outputs else "")
    assert capsys.readouterr().out == expected_out
    assert len(optimized.nodes) <= len(graph.nodes)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(programs)
def test_optimised_matches_interpreted_many_programs(steps):
    graph = build(lambda x, y: run_program(steps, x, y), (np.float64, (3,)), (np.float64, (3,)))
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25, -0.75])
    assert outputs_equal(interpret(graph, x, y), compile_graph(graph)(x, y))


def test_dce_drops_cond_outputs_nobody_reads():
    def f(x):
        used, unused = cond(x > 0, lambda: (x + 1, np.exp(x)), lambda: (x - 1, np.sin(x)))
        return used

    graph = build(f, (np.float64, ()))
    cleaned = eliminate_dead_code(graph).verify()
    node = next(n for n in cleaned.nodes if n.op == "cond")
    assert len(node.type) == 1
    assert "exp" not in ops(node.attrs["true"]) and "sin" not in ops(node.attrs["false"])
    assert compile_graph(graph)(np.float64(1.0)) == [2.0]
    assert compile_graph(graph)(np.float64(-1.0)) == [-2.0]


def test_dce_drops_loop_variables_nothing_needs():
    def f(x):
        def body(i, total, trace):
            return i + 1, total + i, np.exp(trace) + total

        return while_loop(lambda i, total, trace: i < x, body, (0, 0, 0.0))[1]

    graph = build(f, (np.int64, ()))
    cleaned = eliminate_dead_code(graph).verify()
    loop = next(n for n in cleaned.nodes if n.op == "while")
    assert len(loop.type) == 2 and len(loop.attrs["body"].inputs) == 2
    assert "exp" not in ops(loop.attrs["body"])
    assert compile_graph(graph)(np.int64(5)) == [10]


def test_dce_keeps_loop_variables_the_test_or_an_effect_uses():
    def f(x):
        def body(i, shown, limit):
            print_(shown)
            return i + 1, shown * 2, limit

        return while_loop(lambda i, shown, limit: i < limit, body, (0, 1, x))[0]

    loop = next(n for n in eliminate_dead_code(build(f, (np.int64, ()))).nodes if n.op == "while")
    assert len(loop.type) == 3
