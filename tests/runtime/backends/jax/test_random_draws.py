"""ag.random under jit_compile=True: the same counter-based draws as the NumPy backend, new at every call."""

import numpy as np
import pytest

import autograph as ag

pytest.importorskip("jax")


def _program():
    rng = ag.random.Generator(7)

    def f(x):
        return (x + rng.normal(size=(3,)), rng.integers(0, 10, size=(2,)), rng.permutation(4),
                rng.uniform(size=()))

    return f


def test_same_seed_same_numbers_on_both_backends_and_new_ones_each_call():
    on_numpy, on_xla = ag.function(_program()), ag.function(_program(), jit_compile=True)
    x = np.zeros(3)
    first = on_xla(x)
    for want, have in zip(on_numpy(x), first):
        assert np.asarray(have).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(have, want)
    second = on_xla(x)
    assert not np.array_equal(first[0], second[0])
    for want, have in zip(on_numpy(x), second):
        np.testing.assert_array_equal(have, want)
