"""Item assignment on the XLA backend: `x.at[key].set(value)`, agreeing with the NumPy backend."""

import numpy as np
import pytest

import autograph as ag

pytest.importorskip("jax")


def fill(x):
    y = np.zeros(4)
    for i in ag.range(3):
        y[i] = x[i] * 2
    y[x > 1.5] = -1.0
    y[1:3] += 1.0
    z = np.zeros((2, 3), dtype=np.int64)
    z[1, 2] = 7.9  # cast as NumPy's assignment casts: 7
    return y, z


@pytest.mark.parametrize("x", [np.array([0.5, 1.0, 2.0, 3.0]), np.array([3.0, -1.0, 0.25, 1.5])])
def test_updates_agree_with_the_numpy_backend(x):
    expected = ag.function(fill)(x)
    got = ag.function(fill, jit_compile=True)(x)
    for want, have in zip(expected, got):
        assert have.dtype == want.dtype
        np.testing.assert_array_equal(have, want)


def test_an_update_out_of_bounds_raises_as_numpy_would():
    @ag.function(jit_compile=True)
    def put(i):
        y = np.zeros(3)
        y[i] = 1.0
        return y

    np.testing.assert_array_equal(put(np.int64(-1)), [0.0, 0.0, 1.0])
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        put(np.int64(5))
