"""Loop-invariant code motion: what moves out of a loop, what stays, and that values never change."""

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.passes import hoist_invariants, optimize
from runtime.passes.hoist import cannot_fail, invariant_nodes
from runtime.tracing.control_flow import while_loop
from runtime.tracing.effects import print_
from tests.runtime.tracing import build, outputs_equal


def ops(graph):
    return [n.op for n in graph.nodes]


def loop_of(graph):
    return next(n for n in graph.nodes if n.op == "while")


def _transpose_loop(x, w, n):
    def body(i, acc):
        return i + 1, acc + x @ np.transpose(w)

    return while_loop(lambda i, acc: i < n, body, (0, np.zeros((2, 2))))[1]


TYPES = ((np.float64, (2, 3)), (np.float64, (2, 3)), (np.int64, ()))


def test_a_transpose_of_an_outer_value_moves_in_front_of_the_loop():
    graph = build(_transpose_loop, *TYPES)
    hoisted = hoist_invariants(graph).verify()
    assert "transpose" in ops(hoisted)
    assert "transpose" not in ops(loop_of(hoisted).attrs["body"])
    source = compile_graph(graph).source
    assert source.index("np.transpose") < source.index("while")
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    for n in (np.int64(0), np.int64(1), np.int64(4)):
        assert outputs_equal(compile_graph(graph)(x, w, n), interpret(graph, x, w, n))


def test_nothing_to_hoist_returns_the_graph_as_is():
    def f(x):
        return while_loop(lambda v: v < 10, lambda v: (v + 1,), (x,))[0]

    graph = build(f, (np.int64, ()))
    assert hoist_invariants(graph) is graph


def test_ops_that_may_fail_stay_in_a_loop_that_may_run_zero_times():
    # x // d with d == 0 warns, x[d + 7] may be out of bounds, log warns on 0, float overflow warns:
    # none of them may run before a loop that never iterates.
    def f(x, d, n):
        def body(i, acc):
            return i + 1, acc + x // d + np.log(np.abs(x) + 0.0).sum() + x[d + 7] + x.astype(np.float64) * 1e308

        return while_loop(lambda i, acc: i < n, body, (0, np.zeros(4)))[1]

    graph = build(f, (np.int64, (4,)), (np.int64, ()), (np.int64, ()))
    body = loop_of(optimize(graph)).attrs["body"]
    for op in ("floor_divide", "log", "index", "multiply"):
        assert op in ops(body), op
    x, d, n = np.arange(4), np.int64(0), np.int64(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert outputs_equal(compile_graph(graph)(x, d, n), [np.zeros(4)])


def test_integer_scalar_arithmetic_stays_but_integer_array_arithmetic_moves():
    def f(a, s, n):
        def body(i, acc, t):
            return i + 1, acc + (a * 3 + 1), t + s * 3  # s * 3 on an int64 scalar may warn on overflow

        return while_loop(lambda i, acc, t: i < n, body, (0, np.zeros(3, np.int64), np.int64(0)))[1:]

    graph = build(f, (np.int64, (3,)), (np.int64, ()), (np.int64, ()))
    body = loop_of(hoist_invariants(graph)).attrs["body"]
    assert ops(body).count("multiply") == 1  # the scalar's stays
    a, s = np.array([2**62, -1, 5]), np.int64(2**62)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert outputs_equal(compile_graph(graph)(a, s, np.int64(0)), [np.zeros(3, np.int64), np.int64(0)])


def test_effects_reads_and_random_draws_are_never_hoisted():
    def f(x, n):
        def body(i):
            print_(np.transpose(x))
            return (i + 1,)

        return while_loop(lambda i: i < n, body, (0,))[0]

    graph = build(f, (np.float64, (2, 2)), (np.int64, ()))
    loop = loop_of(hoist_invariants(graph))
    assert ops(loop.attrs["body"]).count("print") == 1
    assert all(n.op != "print" for n in invariant_nodes(loop.attrs["body"]))


def test_chains_of_invariant_nodes_move_together_and_values_held_in_the_loop_stay():
    def f(x, n):
        def body(i, acc):
            t = np.transpose(x)
            return i + 1, acc + np.reshape(t, (4,)) + np.reshape(acc, (2, 2)).ravel()

        return while_loop(lambda i, acc: i < n, body, (0, np.zeros(4)))[1]

    graph = build(f, (np.float64, (2, 2)), (np.int64, ()))
    body = loop_of(hoist_invariants(graph).verify()).attrs["body"]
    assert "transpose" not in ops(body)
    assert ops(body).count("reshape") == 1  # acc's reshape depends on the loop
    x = np.arange(4.0).reshape(2, 2)
    assert outputs_equal(compile_graph(graph)(x, np.int64(3)), interpret(graph, x, np.int64(3)))


def test_nested_loops_hoist_into_the_enclosing_body():
    def f(x, n):
        def outer(i, acc):
            def inner(j, a):
                return j + 1, a + np.transpose(x)

            return i + 1, while_loop(lambda j, a: j < n, inner, (0, acc))[1]

        return while_loop(lambda i, acc: i < n, outer, (0, np.zeros((2, 2))))[1]

    graph = build(f, (np.float64, (2, 2)), (np.int64, ()))
    optimised = optimize(graph).verify()
    outer_body = loop_of(optimised).attrs["body"]
    assert "transpose" not in ops(loop_of(outer_body).attrs["body"])
    x = np.arange(4.0).reshape(2, 2)
    for n in (0, 1, 3):
        assert outputs_equal(compile_graph(graph)(x, np.int64(n)), interpret(graph, x, np.int64(n)))


def test_cannot_fail_needs_known_shapes_and_safe_casts():
    graph = build(lambda x, y: (x.astype(np.float64), x.astype(np.int8), x + y, np.transpose(y)),
                  (np.int32, (3,)), (np.int32, None))
    cast_up, cast_down, add, transpose = (n for n in graph.nodes if n.op not in ("input", "constant"))
    assert cannot_fail(cast_up) and not cannot_fail(cast_down)
    assert not cannot_fail(add) and not cannot_fail(transpose)  # y's shape is unknown


@settings(max_examples=60, deadline=None)
@given(
    trips=st.integers(0, 3),
    data=st.lists(st.integers(-(2**63), 2**63 - 1), min_size=4, max_size=4),
    op=st.sampled_from(["add", "mul", "neg", "cmp", "and", "T", "max", "cast"]),
)
def test_hoisting_never_changes_a_value(trips, data, op):
    make = {
        "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "neg": lambda a, b: -a,
        "cmp": lambda a, b: (a < b).astype(np.int64), "and": lambda a, b: a & b,
        "T": lambda a, b: np.transpose(np.reshape(a, (2, 2))).ravel(), "max": lambda a, b: np.maximum(a, b),
        "cast": lambda a, b: a.astype(np.float64).astype(np.int64) * 0 + b,
    }[op]

    def f(a, b, n):
        def body(i, acc):
            return i + 1, acc ^ make(a, b)

        return while_loop(lambda i, acc: i < n, body, (0, np.zeros(4, np.int64)))[1]

    graph = build(f, (np.int64, (4,)), (np.int64, (4,)), (np.int64, ()))
    assert invariant_nodes(loop_of(graph).attrs["body"])
    a, b = np.array(data, np.int64), np.array(data[::-1], np.int64)
    with warnings.catch_warnings():
        # a loop that never runs must not warn (hoisting may not add work that does); one that runs
        # may warn as its own body does (a float64 near 2**63 cast back to int64)
        warnings.simplefilter("error" if trips == 0 else "ignore")
        got = compile_graph(graph)(a, b, np.int64(trips))
    with np.errstate(all="ignore"):
        assert outputs_equal(got, interpret(graph, a, b, np.int64(trips)))
