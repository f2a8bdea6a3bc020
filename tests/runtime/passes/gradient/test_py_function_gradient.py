"""ag.py_function(..., grad=grad_fn): the user's gradient runs as a host call of the backward pass;
without one, differentiating through the call is an error naming its line, inside a Function and
outside one."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.runtime.passes.gradient.checks import numeric_gradient

X = np.array([0.3, 1.2, -0.7])


def sin_grad(upstream, x):
    return upstream * np.cos(x)


def through_sin(x):
    return ag.py_function(np.sin, [x], np.float64, grad=sin_grad) * x


def test_a_gradient_function_makes_py_function_differentiable():
    np.testing.assert_allclose(ag.grad(through_sin)(X), numeric_gradient(lambda x: np.sin(x) * x, [X], 0), rtol=1e-6)


def test_outside_a_function_the_eager_tape_records_the_call():
    with ag.GradientTape() as tape:
        x = tape.watch(X)
        y = ag.py_function(np.sin, [x], np.float64, grad=sin_grad) * x
    np.testing.assert_allclose(tape.gradient(y, x), np.cos(X) * X + np.sin(X))


def test_a_variable_input_outside_a_function():
    v = ag.Variable(np.array([0.5, 1.0]))
    with ag.GradientTape() as tape:
        y = ag.py_function(np.sin, [v * 2.0], np.float64, grad=sin_grad)
    np.testing.assert_allclose(tape.gradient(y, v), 2 * np.cos([1.0, 2.0]))


def product_and_sum(a, b):
    return [a * b, a + b]


def product_and_sum_grad(upstream, a, b):
    d_product, d_sum = upstream
    return d_product * b + d_sum, d_product * a + d_sum


def test_several_results_and_inputs():
    def f(a, b):
        p, s = ag.py_function(product_and_sum, [a, b], [np.float64, np.float64], grad=product_and_sum_grad)
        return p * 2.0 + np.sin(s)

    a, b = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    ga, gb = ag.grad(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, 2 * b + np.cos(a + b))
    np.testing.assert_allclose(gb, 2 * a + np.cos(a + b))

    def only_product(a, b):  # the unused result's gradient arrives as zeros
        return ag.py_function(product_and_sum, [a, b], [np.float64, np.float64], grad=product_and_sum_grad)[0]

    ga, gb = ag.grad(only_product, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, b)
    np.testing.assert_allclose(gb, a)


def test_none_is_a_zero_gradient_and_integer_inputs_get_none():
    def f(x, k):
        return ag.py_function(lambda x, k: x * k, [x, k], np.float64, grad=lambda up, x, k: (up * k, None))

    assert np.allclose(ag.grad(f)(X, np.int64(3)), 3.0)
    with ag.GradientTape() as tape:
        x = tape.watch(X)
        y = ag.py_function(lambda x: x * 2, [x], np.float64, grad=lambda up, x: None)
    np.testing.assert_allclose(tape.gradient(y, x), np.zeros(3))


def test_in_a_staged_loop():
    def f(x):
        total = x * 0.0
        for _ in ag.range(3):
            total = total + ag.py_function(np.sin, [x + total], np.float64, grad=sin_grad, shape=(3,))
        return total

    def plain(x):
        total = x * 0.0
        for _ in range(3):
            total = total + np.sin(x + total)
        return total

    np.testing.assert_allclose(ag.grad(f)(X), numeric_gradient(plain, [X], 0), rtol=1e-6)


def test_without_a_gradient_function_the_error_names_the_line():
    def f(x):
        return ag.py_function(np.sin, [x], np.float64) * x  # the line named

    with pytest.raises(ag.errors.StagingError, match=r"test_py_function_gradient.py:\d+.*ag.py_function.*grad="):
        ag.grad(f)(X)
    with pytest.raises(ag.errors.StagingError, match=r"test_py_function_gradient.py:\d+.*ag.py_function"):
        with ag.GradientTape() as tape:
            x = tape.watch(X)
            y = ag.py_function(np.sin, [x], np.float64) + x  # outside a Function: no silently lost path
        tape.gradient(y, x)


def test_a_wrong_gradient_is_a_clear_error():
    def wrong_shape(upstream, x):
        return upstream[:1]

    with pytest.raises(ag.errors.InvalidArgumentError, match="'wrong_shape'.*shape \\(1,\\) for input 0"):
        ag.grad(lambda x: ag.py_function(np.sin, [x], np.float64, grad=wrong_shape))(X)
    with pytest.raises(TypeError, match="grad= must be a function"):
        ag.py_function(np.sin, [X], np.float64, grad=3)


def test_second_order_through_a_gradient_function_is_refused():
    def df(x):
        with ag.GradientTape() as inner:
            inner.watch(x)
            y = through_sin(x)
        return inner.gradient(y, x)

    with pytest.raises(ag.errors.StagingError, match=r"test_py_function_gradient.py:\d+: .*gradient function given to an ag.py_function"):
        ag.grad(lambda x: np.sum(df(x)))(X)
