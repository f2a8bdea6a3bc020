"""ag.grad / ag.value_and_grad, and the whole-graph transform against the reference interpreter."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime.backends.numpy.compiler import compile_graph
from runtime.backends.numpy.interpret import interpret
from runtime.passes.gradient import gradient_graph


def loss(w, x, scale=2.0):
    return np.sum(np.tanh(x @ w) * scale)


def test_grad_argnums_int_and_tuple():
    w, x = np.array([0.5, -0.25]), np.array([[1.0, 2.0], [3.0, -1.0]])
    gw = ag.grad(loss)(w, x)
    gw2, gx = ag.grad(loss, argnums=(0, 1))(w, x)
    d = 2.0 * (1 - np.tanh(x @ w) ** 2)
    np.testing.assert_allclose(gw, x.T @ d)
    np.testing.assert_allclose(gw2, gw)
    np.testing.assert_allclose(gx, np.outer(d, w))


def test_value_and_grad_and_has_aux():
    def f(x):
        y = np.sin(x)
        return np.sum(y), {"y": y}

    x = np.array([0.1, 0.4])
    (value, aux), g = ag.value_and_grad(f, has_aux=True)(x)
    assert value == pytest.approx(np.sum(np.sin(x)))
    np.testing.assert_allclose(aux["y"], np.sin(x))
    np.testing.assert_allclose(g, np.cos(x))
    g2, aux2 = ag.grad(f, has_aux=True)(x)
    np.testing.assert_allclose(g2, np.cos(x))
    v, g3 = ag.value_and_grad(lambda x: np.sum(x ** 2))(x)
    assert v == pytest.approx(np.sum(x ** 2)) and np.allclose(g3, 2 * x)


def test_grad_is_a_cached_function():
    dsin = ag.grad(lambda x: np.sum(np.sin(x)))
    for value in ([0.1, 0.2], [0.3, 0.4]):
        np.testing.assert_allclose(dsin(np.array(value)), np.cos(value))
    assert dsin.experimental_get_tracing_count() == 1
    assert isinstance(dsin, type(ag.function(lambda x: x)))


def test_grad_of_a_function_and_float32():
    @ag.function
    def f(x):
        return np.sum(x * x)

    g = ag.grad(f)(np.float32([1.0, 2.0]))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [2.0, 4.0])


def test_grad_refuses_a_python_number_argument():
    with pytest.raises(ag.errors.StagingError, match="np.float64"):
        ag.grad(lambda x: x * 2.0)(3.0)


def test_gradient_graph_runs_the_same_in_the_interpreter_and_compiled():
    def f(x, y):
        while np.sum(x) < 4.0:
            x = x * 1.5 + np.sin(y)
        if np.max(x) > 3.0:
            x = x * y
        return np.sum(x)

    cf = ag.function(f).get_concrete_function(np.array([0.2, 0.3]), np.array([0.5, 0.1]))
    grad_graph = gradient_graph(cf.graph).verify()
    for args in ([np.array([0.2, 0.3]), np.array([0.5, 0.1])], [np.array([3.0, 3.0]), np.array([1.0, 2.0])]):
        expected = interpret(grad_graph, *args)
        got = compile_graph(grad_graph)(*args)
        for a, b in zip(expected, got):
            np.testing.assert_allclose(a, b)


def test_grad_with_respect_to_a_variable_argument():
    w = ag.Variable(np.array([1.0, -2.0]))
    g = ag.grad(lambda w, x: np.sum(w * x) + np.sum(w * w), argnums=(0, 1))(w, np.array([3.0, 4.0]))
    np.testing.assert_allclose(g[0], [3.0 + 2.0, 4.0 - 4.0])
    np.testing.assert_allclose(g[1], [1.0, -2.0])
