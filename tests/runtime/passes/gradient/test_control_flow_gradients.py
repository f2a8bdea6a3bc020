"""Gradients through staged if, while, for, break/continue/return, TensorArrays and Variables,
checked against central differences of the same program run as plain Python."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from tests.runtime.passes.gradient.checks import assert_gradient, numeric_gradient
from tests.runtime.random_programs import programs, run_program


def branchy(x):
    if np.sum(x) > 0:
        y = np.sin(x) * 2
    else:
        y = x ** 3
    return y


def while_with_break(x):
    i = 0
    while i < 10:
        x = np.tanh(x) * 1.5 + 0.1
        if np.sum(x) > 2.0:
            break
        i += 1
    return x


def nested_loops(x, w):
    s = 0.0 * x
    for i in ag.range(3):
        j = 0
        while j < i + 1:
            s = s + np.sin(x * w) * (j + 1)
            j += 1
    return s


def tensor_array(x):
    ta = ag.TensorArray(np.float64, size=4)
    for i in ag.range(4):
        ta = ta.write(i, x[i] * x[i] + x)
    out = ta.stack()
    total = 0.0 * x[0]
    for i in ag.range(4):
        total = total + np.sum(ta.read(i) * (i + 1.0))
    return np.sum(out) + total


def dynamic_tensor_array(x):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    i = 0
    while np.sum(x) < 4.0:
        x = x * 1.3 + 0.2
        ta = ta.write(i, np.tanh(x))
        i += 1
    return ta.stack()


def rnn(xs, w):
    h = np.zeros(2)
    for row in xs:
        h = np.tanh(row @ w + h)
    return h


def return_in_loop(x):
    for _ in ag.range(5):
        x = x * 1.1 + np.sin(x)
        if np.max(x) > 3.0:
            return x * 2
    return x


def continue_in_loop(x):
    acc = x * 0
    for i in ag.range(6):
        if i % 2 == 0:
            continue
        acc = acc + x ** 2 * i
    return acc


def tanh_while(x):
    while np.sum(x) < 5.0:
        x = np.tanh(x) + x
    return x


def loop_with_cond_and_index(x):
    total = x[0] * 0
    i = 0
    while i < 3:
        if x[i] > 0:
            total = total + x[i] ** 2
        else:
            total = total - np.sin(x[i])
        i += 1
    return total


rng = np.random.default_rng(3)
PROGRAMS = {
    "if_true": (branchy, np.array([0.5, 1.0])),
    "if_false": (branchy, np.array([-0.5, -1.0])),
    "while_break": (while_with_break, np.array([0.2, 0.1])),
    "while_no_break": (while_with_break, np.array([-0.9, -0.8])),
    "nested": (nested_loops, np.array([0.3, 0.4]), np.array(1.3)),
    "tensor_array": (tensor_array, rng.normal(size=(4,))),
    "dynamic_tensor_array": (dynamic_tensor_array, np.array([0.3, 0.1])),
    "for_over_rows": (rnn, rng.normal(size=(5, 3)), rng.normal(size=(3, 2))),
    "return_in_loop": (return_in_loop, np.array([0.5, 0.2])),
    "continue": (continue_in_loop, np.array([0.5, 0.2])),
    "tanh_while": (tanh_while, np.array([0.3, 0.2])),
    "loop_cond_index": (loop_with_cond_and_index, np.array([0.5, -0.7, 1.2])),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_converted_programs(name):
    fn, *args = PROGRAMS[name]
    assert_gradient(fn, *args, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_graphs_verify_before_and_after_optimisation(name):
    from runtime.passes import optimize

    fn, *args = PROGRAMS[name]
    graph = ag.grad(fn, argnums=tuple(range(len(args)))).get_concrete_function(*args).graph
    graph.verify()
    optimize(graph).verify()


def test_trip_count_depends_on_input():
    """The same trace serves inputs that loop 1 and 6 times."""
    grad = ag.grad(lambda x: np.sum(tanh_while(x)))
    for x in (np.array([2.0, 2.5]), np.array([0.1, 0.2])):
        np.testing.assert_allclose(grad(x), numeric_gradient(tanh_while, [x], 0), rtol=1e-5)
    assert grad.experimental_get_tracing_count() == 1


def test_while_loop_with_maximum_iterations():
    def f(x):
        return ag.while_loop(lambda v: np.sum(v) < 100.0, lambda v: (v * 1.5 + np.sin(v),), (x,),
                             maximum_iterations=3)[0]

    assert_gradient(f, np.array([0.4, 0.9]))


def test_variable_read_inside_loop():
    w = ag.Variable(np.array([0.5, -0.3]))

    @ag.function
    def step(x):
        with ag.GradientTape() as tape:
            h = x
            for _ in ag.range(4):
                h = np.tanh(h * w + 0.1)
            loss = np.sum(h)
        return tape.gradient(loss, w)

    def plain(wv, x):
        h = x
        for _ in range(4):
            h = np.tanh(h * wv + 0.1)
        return np.sum(h)

    x = np.array([0.7, 1.1])
    np.testing.assert_allclose(step(x), numeric_gradient(plain, [w.numpy(), x], 0), rtol=1e-5)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=programs, seed=st.integers(0, 2**16))
def test_random_staged_programs(steps, seed):
    """The staged fuzzer's programs (nested conds and loops capturing values) against central differences."""
    values = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(2, 3))

    def program(x, y):
        first, second = run_program(steps, x, y)
        return np.sum(first * 1.5) + np.sum(second)

    staged = ag.grad(program, argnums=(0, 1))(values[0], values[1])
    for index in (0, 1):
        expected = numeric_gradient(program, list(values), index)
        np.testing.assert_allclose(staged[index], expected, rtol=1e-4, atol=1e-5)


def test_effects_in_a_differentiated_loop_run_once(capsys):
    def f(x):
        for i in ag.range(3):
            ag.print("step", i)
            if np.sum(x) > 0:
                ag.print("positive")
            x = np.sin(x) * 2.0
        return x

    grad = ag.grad(f)(np.array([0.3, 0.2]))
    assert capsys.readouterr().out.count("step") == 3
    np.testing.assert_allclose(grad, numeric_gradient(lambda x: _plain_sin_loop(x), [np.array([0.3, 0.2])], 0),
                               rtol=1e-5)


def _plain_sin_loop(x):
    for _ in range(3):
        x = np.sin(x) * 2.0
    return x


def test_tensor_array_element_written_twice_is_refused():
    def f(x):
        ta = ag.TensorArray(np.float64, size=2)
        for i in ag.range(3):
            ta = ta.write(i % 2, x * i)
        return ta.stack()

    with pytest.raises(ag.errors.InvalidArgumentError, match="written twice"):
        ag.grad(f)(np.array([0.3, 0.2]))


def test_variable_assigned_after_a_loop_that_reads_it_is_refused():
    v = ag.Variable(2.0)

    @ag.function
    def f(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in ag.range(2):
                y = y * v
            v.assign(5.0)
        return tape.gradient(y, x)

    with pytest.raises(ag.errors.StagingError, match="assigned here"):
        f(np.float64(1.0))


def test_variable_assigned_between_the_tape_and_the_gradient_is_refused():
    v = ag.Variable(2.0)

    @ag.function
    def f(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in ag.range(2):
                y = y * v
        v.assign(5.0)
        return tape.gradient(y, x)

    with pytest.raises(ag.errors.StagingError, match="assigned here"):
        f(np.float64(1.0))
