"""Residuals of differentiated while loops: tanh/exp/sqrt-like results the taped loop saves for the
backward loop (instead of recomputing them), and only the stacks the backward body reads.

Each program is checked against central differences (NumPy backend) and, where JAX is importable,
XLA's gradient against the NumPy backend's; the graphs are checked to save and not recompute."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import autograph as ag
from runtime.ir.graph import Graph
from runtime.passes.gradient.residuals import SAVED_OPS, candidates, live_nodes
from tests.runtime.passes.gradient.checks import assert_gradient


def tanh_while(x):
    while np.max(x) < 3.0:
        x = x + 0.1 * np.tanh(x)
    return np.sum(x)


def saved_and_reused(x, w):
    # the saved tanh feeds the next value and a product whose gradient reads both sides;
    # exp of a saved value is saved too; w is captured
    for _ in ag.range(4):
        t = np.tanh(x * w)
        e = np.exp(t * 0.5)
        x = x * t + e * 0.1 + np.sqrt(x * x + 1.0)
    return np.sum(x)


def unsaved_loop_variable_needed(x):
    # sin's gradient reads its input (x), so the stack of x stays, beside the saved tanh
    while np.sum(x) < 4.0:
        x = x + np.sin(x) * 0.3 + np.tanh(x) * 0.2 + 0.05
    return np.sum(x * x)


def nested_and_branchy(x):
    for _ in ag.range(3):
        for k in ag.range(2):
            x = x + 0.2 * np.tanh(x) * (k + 1.0)
        if np.sum(x) > 1.0:
            x = x * np.exp(-0.1 * x)
        else:
            x = x + np.expm1(x) * 0.1
    return np.sum(x)


def with_break(x):
    for _ in ag.range(20):
        y = np.tanh(x)
        if np.max(y) > 0.9:
            break
        x = x + y * 0.4 + np.cbrt(x + 2.0) * 0.1
    return np.sum(x * x)


def invariant_tanh(x, w):
    # tanh(w) does not change in the loop: not a residual (it is the same every iteration)
    for _ in ag.range(3):
        x = x * np.tanh(w) + x
    return np.sum(x)


PROGRAMS = {
    "tanh_while": (tanh_while, (np.array([0.05, 0.08, 0.1]),)),
    "saved_and_reused": (saved_and_reused, (np.array([0.3, -0.2]), np.array([0.7, 1.1]))),
    "unsaved_loop_variable_needed": (unsaved_loop_variable_needed, (np.array([0.2, 0.1, 0.4]),)),
    "nested_and_branchy": (nested_and_branchy, (np.array([0.2, 0.3]),)),
    "with_break": (with_break, (np.array([0.1, -0.2]),)),
    "invariant_tanh": (invariant_tanh, (np.array([0.5, 0.2]), np.array([0.3, -0.4]))),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradients_agree_with_central_differences(name):
    fn, args = PROGRAMS[name]
    assert_gradient(fn, *args)


@given(x=st.lists(st.floats(0.05, 3.5), min_size=1, max_size=4))
@settings(max_examples=10)
def test_data_dependent_trip_counts(x):
    """Trip counts from 0 (max(x) >= 3) up: the saved values line up with their iterations
    (positive x grows, so the loop ends)."""
    x = np.array(x)
    assume(len({_trips(x + d) for d in (-1e-4, 0.0, 1e-4)}) == 1)  # no trip count change nearby
    assert_gradient(tanh_while, x)


def _trips(x: np.ndarray) -> int:
    count = 0
    while np.max(x) < 3.0:
        x = x + 0.1 * np.tanh(x)
        count += 1
    return count


def _backward_bodies(graph: Graph) -> list[Graph]:
    found = []
    for node in graph.nodes:
        if node.op == "while" and node.name.startswith("loop_grad"):
            found.append(node.attrs["body"])
        for value in node.attrs.values():
            if isinstance(value, Graph):
                found += _backward_bodies(value)
    return found


def _ops(graph: Graph) -> list[str]:
    ops = []
    for node in graph.nodes:
        ops.append(node.op)
        for value in node.attrs.values():
            if isinstance(value, Graph):
                ops += _ops(value)
    return ops


def _gradient_graph(fn, *args) -> Graph:
    return ag.grad(fn, argnums=tuple(range(len(args)))).get_concrete_function(*args).graph


def test_backward_body_reads_tanh_instead_of_recomputing_it():
    graph = _gradient_graph(tanh_while, np.array([0.05, 0.1]))
    (back,) = _backward_bodies(graph)
    ops = _ops(back)
    assert "tanh" not in ops
    assert ops.count("ta_read") == 1  # the saved tanh; x itself is no longer needed


def test_taped_loop_keeps_the_loop_variable_where_a_rule_reads_it():
    graph = _gradient_graph(unsaved_loop_variable_needed, np.array([0.2, 0.1]))
    (back,) = _backward_bodies(graph)
    ops = _ops(back)
    assert "tanh" not in ops and "sin" not in ops  # sin's gradient is cos(x) of the popped x
    assert "cos" in ops and ops.count("ta_read") == 2


def test_candidates_are_varying_saved_ops():
    graph = ag.function(invariant_tanh).get_concrete_function(np.zeros(2), np.zeros(2)).graph
    loops = [n for n in graph.nodes if n.op == "while"]
    assert loops and all(candidates(loop.attrs["body"]) == [] for loop in loops)
    graph = ag.function(saved_and_reused).get_concrete_function(np.zeros(2), np.zeros(2)).graph
    (loop,) = [n for n in graph.nodes if n.op == "while"]
    assert sorted(n.op for n in candidates(loop.attrs["body"])) == ["exp", "sqrt", "tanh"]
    assert {"exp", "tanh", "sqrt"} <= SAVED_OPS


def test_live_nodes_stop_at_leaves():
    graph = ag.function(tanh_while).get_concrete_function(np.zeros(2)).graph
    (loop,) = [n for n in graph.nodes if n.op == "while"]
    body = loop.attrs["body"]
    (tanh,) = candidates(body)
    live = live_nodes(body, {tanh})
    assert tanh in live and body.inputs[0] in live  # x + 0.1 * tanh(x) still reads x


pytest.importorskip("jax")


def tanh_while_bounded(x):
    while np.max(x) < 3.0:
        ag.set_loop_options(maximum_iterations=100)
        x = x + 0.1 * np.tanh(x)
    return np.sum(x)


def needed_bounded(x):
    while np.sum(x) < 4.0:
        ag.set_loop_options(maximum_iterations=50)
        x = x + np.sin(x) * 0.3 + np.tanh(x) * 0.2 + 0.05
    return np.sum(x * x)


# XLA needs a bound on a loop whose trip count depends on the data
ON_XLA = {"tanh_while": tanh_while_bounded, "unsaved_loop_variable_needed": needed_bounded}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_xla_agrees_with_the_numpy_backend(name):
    fn, args = PROGRAMS[name]
    argnums = tuple(range(len(args)))
    expected = ag.grad(fn, argnums=argnums)(*args)
    got = ag.grad(ag.function(ON_XLA.get(name, fn), jit_compile=True), argnums=argnums)(*args)
    for a, b in zip(expected, got):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)


def test_xla_backward_loop_has_no_tanh():
    grad = ag.grad(ag.function(tanh_while_bounded, jit_compile=True))
    x = np.array([0.05, 0.1])
    grad(x)
    text = grad.get_concrete_function(x).lowered_text("jaxpr")
    assert text.count("tanh") == 1  # the taped forward loop's only
