"""TensorArray.gather and .concat under jit_compile=True: the NumPy backend's elements and errors."""

import numpy as np
import pytest

import autograph as ag

pytest.importorskip("jax")


def doubled_then_gathered(x, picks):
    ta = ag.TensorArray(np.float64, size=3)
    for i in ag.range(3):
        ta = ta.write(i, x[i] * 2)
    return ta.gather(picks)


@pytest.mark.parametrize("picks", [np.array([0, 2]), np.array([-1, 0, 1])])
def test_gather_agrees_with_the_numpy_backend(picks):
    x = np.array([0.5, 1.5, 2.5])
    expected = ag.function(doubled_then_gathered)(x, picks)
    np.testing.assert_array_equal(ag.function(doubled_then_gathered, jit_compile=True)(x, picks), expected)


def test_gathering_an_unwritten_element_fails_as_on_the_numpy_backend():
    def partly_written(x, j):
        ta = ag.TensorArray(np.float64, size=3)
        for i in ag.range(2):
            ta = ta.write(i, x[i])
        return ta.gather(np.stack([np.int64(0), j]))

    for backend in (ag.function(partly_written), ag.function(partly_written, jit_compile=True)):
        with pytest.raises(ag.errors.InvalidArgumentError, match="element 2 was read before it was written"):
            backend(np.arange(3.0), np.int64(2))


def rows(x):
    ta = ag.TensorArray(np.float64, size=3)
    for i in ag.range(3):
        ta = ta.write(i, x[i] * np.ones(2))
    return ta.concat()


def test_concat_agrees_with_the_numpy_backend():
    x = np.array([0.5, 1.5, 2.5])
    np.testing.assert_array_equal(ag.function(rows, jit_compile=True)(x), ag.function(rows)(x))


def test_concat_of_an_unwritten_element_fails_as_on_the_numpy_backend():
    def partly(x):
        ta = ag.TensorArray(np.float64, size=3)
        for i in ag.range(2):
            ta = ta.write(i, x[i] * np.ones(2))
        return ta.concat()

    for backend in (ag.function(partly), ag.function(partly, jit_compile=True)):
        with pytest.raises(ag.errors.InvalidArgumentError, match="element 2 was never written"):
            backend(np.arange(3.0))
