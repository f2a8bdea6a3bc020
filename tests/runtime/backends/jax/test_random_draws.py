"""ag.random under jit_compile=True: jax.random draws keyed by the generator's seed, new at every call."""

import numpy as np
import pytest

import autograph as ag

pytest.importorskip("jax")


def _program(seed=7, size=(3,)):
    rng = ag.random.Generator(seed)

    def f(x):
        return (x + rng.normal(size=size), rng.integers(0, 10, size=(2,)), rng.permutation(4),
                rng.uniform(size=()), rng.permutation(np.arange(5.0)))

    return f


def test_same_seed_same_numbers_and_new_ones_each_call():
    first_fn, second_fn = ag.function(_program(), jit_compile=True), ag.function(_program(), jit_compile=True)
    on_numpy = ag.function(_program())
    x = np.zeros(3)
    first, again = first_fn(x), second_fn(x)
    for want, have, numpy_value in zip(again, first, on_numpy(x)):
        assert np.asarray(have).dtype == np.asarray(numpy_value).dtype  # NumPy's dtypes, JAX's generator
        np.testing.assert_array_equal(have, want)
    second = first_fn(x)
    assert not np.array_equal(first[0], second[0])
    assert sorted(second[2].tolist()) == [0, 1, 2, 3] and sorted(second[4].tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert all(0 <= v < 10 for v in second[1]) and 0.0 <= second[3] < 1.0


def test_draws_have_the_right_statistics():
    f = ag.function(_program(seed=3, size=(10_000,)), jit_compile=True)
    normal, *_ = f(np.zeros(10_000))
    assert abs(normal.mean()) < 0.05 and abs(normal.var() - 1.0) < 0.05
    rng = ag.random.Generator(5)
    uniform = ag.function(lambda: rng.uniform(size=(10_000,)), jit_compile=True)()
    assert abs(uniform.mean() - 0.5) < 0.02 and abs(uniform.var() - 1 / 12) < 0.01
    assert uniform.min() >= 0.0 and uniform.max() < 1.0


def test_a_permutations_gradient_goes_back_through_the_same_draw():
    rng = ag.random.Generator(3)

    def f(x):
        return np.sum(rng.permutation(x) * np.arange(5.0))

    x = np.arange(5.0) * 1.5
    value, grad = ag.value_and_grad(ag.function(f, jit_compile=True))(x)
    order = np.argsort(grad)  # d/dx of sum(x[order] * arange) is the inverse permutation
    assert value == np.sum(x[order] * np.arange(5.0))
    assert sorted(grad.tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]
