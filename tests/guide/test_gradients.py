"""The guide's GradientTape examples, with ag.GradientTape computing the gradients."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


@ag.function
def add(a, b):
    return a + b


def test_gradient_of_a_function_call():
    v = ag.Variable(1.0)
    with ag.GradientTape() as tape:
        result = add(v, 1.0)
    assert tape.gradient(result, v) == 1.0


@ag.function
def dense_layer(x, w, b):
    return add(np.matmul(x, w), b)


def test_gradient_through_nested_functions():
    w = ag.Variable(np.ones((2, 2)))
    b = ag.Variable(np.ones(2))
    with ag.GradientTape() as tape:
        loss = np.sum(dense_layer(np.ones((3, 2)), w, b))
    gw, gb = tape.gradient(loss, [w, b])
    np.testing.assert_allclose(gw, np.full((2, 2), 3.0))
    np.testing.assert_allclose(gb, [3.0, 3.0])


class Optimizer:
    """Plain gradient descent that creates its step counter on first use, like a Keras optimizer."""

    def __init__(self, learning_rate):
        self.learning_rate = learning_rate
        self.iterations = None

    def apply_gradients(self, grads_and_vars):
        if self.iterations is None:
            self.iterations = ag.Variable(0)
        self.iterations.assign_add(1)
        for gradient, variable in grads_and_vars:
            variable.assign_sub(self.learning_rate * gradient)


def train_step(w, x, y, optimizer):
    with ag.GradientTape() as tape:
        L = np.sum(np.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))


def test_training_step_updates_the_variable():
    opt = Optimizer(1e-2)
    step = ag.function(train_step)
    w = ag.Variable(2.0)
    x, y = np.array([-1.0]), np.array([2.0])
    step(w, x, y, opt)
    # L = (w x - y)^2 = (-2 - 2)^2; dL/dw = 2 (w x - y) x = 8
    assert w.numpy() == pytest.approx(2.0 - 1e-2 * 8.0)
    for _ in range(500):
        step(w, x, y, opt)
    assert w.numpy() == pytest.approx(-2.0, abs=1e-3)  # w x = y
    assert step.experimental_get_tracing_count() == 1


def test_one_function_with_several_optimizers_is_an_error():
    opt1, opt2 = Optimizer(1e-2), Optimizer(1e-3)
    step = ag.function(train_step)
    w = ag.Variable(2.0)
    x, y = np.array([-1.0]), np.array([2.0])
    step(w, x, y, opt1)
    with pytest.raises(ValueError, match="singleton Variables"):
        step(w, x, y, opt2)


def test_one_concrete_function_per_optimizer():
    opt1, opt2 = Optimizer(1e-2), Optimizer(1e-3)
    w = ag.Variable(2.0)
    x, y = np.array([-1.0]), np.array([2.0])
    train_step_1 = ag.function(train_step).get_concrete_function(w, x, y, opt1)
    train_step_2 = ag.function(train_step).get_concrete_function(w, x, y, opt2)
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y)
        else:
            train_step_2(w, x, y)
    assert opt1.iterations.numpy() == 5 and opt2.iterations.numpy() == 5
    assert w.numpy() < 2.0


def test_training_step_outside_a_function():
    """The guide's "not a tf.function" variant: the tape records eagerly."""
    opt = Optimizer(1e-2)
    w = ag.Variable(2.0)
    train_step(w, np.array([-1.0]), np.array([2.0]), opt)
    assert w.numpy() == pytest.approx(2.0 - 1e-2 * 8.0)
