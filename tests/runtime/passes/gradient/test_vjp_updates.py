"""Gradients of item assignment, TensorArray gather/scatter/concat/split, ag.scan/map_fn/switch_case
and ag.random, against central finite differences in float64."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from tests.runtime.passes.gradient.checks import assert_gradient, numeric_gradient

rng = np.random.default_rng(11)
A = rng.normal(size=(4, 3))
V = rng.normal(size=4)


def ta_gather(a):
    ta = ag.TensorArray(np.float64, size=4)
    for i in ag.range(4):
        ta = ta.write(i, a[i] * 2.0)
    return ta.gather(np.array([3, 0, 3])) ** 2


def ta_scatter(a):
    ta = ag.TensorArray(np.float64, size=5)
    ta = ta.scatter(np.array([4, 0, 2, 1]), np.tanh(a))
    ta = ta.write(3, a[0])
    return ta.stack() * np.arange(15.0).reshape(5, 3)


def ta_scatter_in_loop(v):
    ta = ag.TensorArray(np.float64, size=4)
    for i in ag.range(2):
        ta = ta.scatter(np.stack([2 * i, 2 * i + 1]), v[2 * i: 2 * i + 2] * v[0])
    return ta.stack() * np.arange(4.0)


def ta_concat(a):
    ta = ag.TensorArray(np.float64, size=2, element_shape=(None, 3))
    ta = ta.write(0, a[:1] * 3.0)
    ta = ta.write(1, a[1:] ** 2)
    return ta.concat() * np.arange(12.0).reshape(4, 3)


def ta_split(v):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.split(v, np.array([1, 3]))
    return np.sum(ta.read(1) ** 2) + ta.read(0) * 3.0


def setitem_slice(v):
    z = np.zeros(6)
    z[1:5] = v * 2.0
    z[2] = v[0] ** 2
    return z * np.arange(6.0)


def setitem_repeated_index(v):
    z = np.ones(3) * v[0]
    z[np.array([0, 2, 0])] = v[1:] ** 2  # element 0 is written twice: the last write wins
    return z * np.arange(1.0, 4.0)


def setitem_mask_and_add(a):
    z = a * 1.0
    z[z > 0] = 0.5
    z[:, 1] += a[:, 0]
    return z ** 2


def setitem_in_loop(v):
    out = np.zeros(4)
    for i in ag.range(4):
        out[i] = v[i] * v[(i + 1) % 4]
    return out * np.arange(4.0)


def setitem_broadcast_value(a, v):
    z = a.copy()
    z[1:3] = v[:3]
    return z * np.arange(12.0).reshape(4, 3)


def scan(v):
    return ag.scan(lambda acc, x: acc * 0.5 + np.tanh(x), v, initializer=np.float64(0.3)) * np.arange(4.0)


def map_fn(a):
    return ag.map_fn(lambda row: np.sum(row ** 2) * row[0], a)


CASES = {
    "ta_gather": (ta_gather, A), "ta_scatter": (ta_scatter, A), "ta_scatter_in_loop": (ta_scatter_in_loop, V),
    "ta_concat": (ta_concat, A), "ta_split": (ta_split, V), "setitem_slice": (setitem_slice, V),
    "setitem_repeated_index": (setitem_repeated_index, V), "setitem_mask_and_add": (setitem_mask_and_add, A),
    "setitem_in_loop": (setitem_in_loop, V), "setitem_broadcast_value": (setitem_broadcast_value, A, V),
    "scan": (scan, V), "map_fn": (map_fn, A),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_updates_and_functional_forms(name):
    fn, *args = CASES[name]
    assert_gradient(fn, *args)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_setitem_with_random_keys(data):
    n = data.draw(st.integers(2, 6))
    x = np.random.default_rng(data.draw(st.integers(0, 99))).normal(size=(n, 2))
    kind = data.draw(st.sampled_from(["int", "slice", "array", "mask"]))
    if kind == "int":
        key = data.draw(st.integers(-n, n - 1))
    elif kind == "slice":
        key = slice(data.draw(st.integers(0, n - 1)), None, data.draw(st.integers(1, 2)))
    elif kind == "array":
        key = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4)))
    else:
        key = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    region = np.zeros((n, 2))[key].shape

    def f(x):
        z = x * 2.0
        z[key] = np.tanh(x[: region[0]] if region and region[0] <= n else x[0]) if len(region) == 2 else x[0, 0] ** 2
        return z * np.arange(2.0 * n).reshape(n, 2)

    assert_gradient(f, x)


@pytest.mark.parametrize("k", [0, 1, 2, 7])
def test_switch_case(k):
    def f(v, k):
        return ag.switch_case(k, [lambda: v * 2.0, lambda: np.sin(v), lambda: v ** 3]) * np.arange(4.0)

    got = ag.grad(f)(V, np.int64(k))
    np.testing.assert_allclose(got, numeric_gradient(lambda v: f(v, k), [V], 0), rtol=1e-6, atol=1e-8)


def test_random_draws_carry_no_gradient_and_permutations_move_it():
    gen = ag.random.Generator(5)
    weights = np.arange(12.0).reshape(4, 3)
    a = np.arange(12.0).reshape(4, 3) / 7.0  # distinct rows

    @ag.function
    def step(a, scale):
        with ag.GradientTape(persistent=True) as tape:
            tape.watch([a, scale])
            noise = gen.normal(size=(4, 3)) + gen.uniform(size=(4, 3)) + gen.integers(0, 5, size=(4, 3))
            shuffled = gen.permutation(a)
            loss = np.sum(shuffled * weights) + np.sum(noise * scale)
        return shuffled, noise, tape.gradient(loss, a), tape.gradient(loss, scale), tape.gradient(np.sum(noise), a)

    shuffled, noise, grad_a, grad_scale, unconnected = step(a, np.float64(2.0))
    assert unconnected is None
    np.testing.assert_allclose(grad_scale, np.sum(noise))
    for row, w in zip(shuffled, weights):
        source = np.flatnonzero(np.all(a == row, axis=1))[0]
        np.testing.assert_allclose(grad_a[source], w)


def test_a_tensor_array_element_scattered_twice_in_a_differentiated_loop_is_refused():
    def f(v):
        ta = ag.TensorArray(np.float64, size=2)
        for i in ag.range(2):
            ta = ta.scatter(np.array([0, 1]), v * v[i])
        return ta.stack()

    with pytest.raises(ag.errors.InvalidArgumentError, match="written twice"):
        ag.grad(f)(np.array([1.0, 2.0]))


def test_tensor_arrays_outside_a_function_are_recorded_by_an_eager_tape():
    x0 = np.array([1.0, 2.0, 3.0, 4.0])

    def program(x):
        ta = ag.TensorArray(np.float64, size=2)
        ta = ta.write(0, x[:2] * 2.0)
        ta = ta.write(1, x[2:] ** 2)
        rows = ag.TensorArray(np.float64, size=0, dynamic_size=True).unstack(np.reshape(x, (2, 2)) * 3.0)
        scattered = ag.TensorArray(np.float64, size=2).scatter(np.array([1, 0]), np.reshape(x, (2, 2)) ** 3)
        pieces = ag.TensorArray(np.float64, size=0, dynamic_size=True).split(x * 5.0, np.array([1, 3]))
        return (np.sum(ta.stack() * np.arange(4.0).reshape(2, 2)) + np.sum(ta.gather(np.array([1, 1])))
                + np.sum(ta.concat() ** 2) + np.sum(rows.read(1) * x[:2]) + np.sum(scattered.stack()[0])
                + np.sum(pieces.read(1) ** 2) + pieces.read(0)[0])

    with ag.GradientTape() as tape:
        x = tape.watch(x0)
        y = program(x)
    np.testing.assert_allclose(tape.gradient(y, x), numeric_gradient(program, [x0], 0), rtol=1e-6)
