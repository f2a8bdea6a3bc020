"""TensorArray.scatter and .split under jit_compile=True: the NumPy backend's elements and errors."""

import numpy as np
import pytest

import autograph as ag

pytest.importorskip("jax")


def both(fn, *args):
    return ag.function(fn)(*args), ag.function(fn, jit_compile=True)(*args)



@pytest.mark.parametrize("picks", [np.array([0, 1, 2]), np.array([2, 0, 1]), np.array([1, 2, 1])])
def test_scatter_agrees_with_the_numpy_backend(picks):
    """Every element written once, in another order, and an index repeated (the last row wins)."""
    def f(x, picks):
        ta = ag.TensorArray(np.float64, size=3)
        ta = ta.scatter(picks, np.stack([x, x + 1, x * 3]))
        if picks[0] == picks[2]:  # element 0 is never written by [1, 2, 1]: write it last
            ta = ta.write(0, x * 0)
        return ta.stack()

    x = np.array([0.5, 1.5])
    expected, got = both(f, x, picks)
    np.testing.assert_array_equal(got, expected)


def test_scatter_into_a_loop_buffer_then_read():
    def f(x):
        ta = ag.TensorArray(np.float64, size=4)
        ta = ta.scatter(np.array([3, 1]), x[:2, None] * np.ones((2, 2)))
        for i in ag.range(2):
            ta = ta.write(2 * i, x[i + 2] * np.ones(2))
        total = np.zeros(2)
        for i in ag.range(4):
            total = total + ta.read(i) * (i + 1)
        return total

    expected, got = both(f, np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("picks, message", [
    (np.array([0, 4]), "index 4 is out of bounds for size 3"),
    (np.array([-1, 0]), "index -1 is out of bounds for size 3"),
])
def test_scatter_out_of_bounds_raises_as_on_the_numpy_backend(picks, message):
    def f(x, picks):
        ta = ag.TensorArray(np.float64, size=3)
        return ta.scatter(picks, np.stack([x, x])).stack()

    for fn in (ag.function(f), ag.function(f, jit_compile=True)):
        with pytest.raises(ag.errors.InvalidArgumentError, match=message):
            fn(np.array([1.0, 2.0]), picks)


def test_split_into_equal_pieces_agrees():
    def f(x):
        ta = ag.TensorArray(np.float64, size=3).split(x * 2, [2, 2, 2])
        return ta.read(1) + ta.stack()[2], ta.concat(), ta.size()

    expected, got = both(f, np.arange(6.0))
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(b, a)
        assert np.asarray(a).dtype == np.asarray(b).dtype


def test_split_into_unequal_pieces_is_refused_naming_the_line():
    def f(x):
        ta = ag.TensorArray(np.float64, size=2).split(x, [1, 3])
        return ta.concat()

    np.testing.assert_array_equal(ag.function(f)(np.arange(4.0)), np.arange(4.0))
    with pytest.raises(ag.errors.StagingError, match=r"test_tensor_array_pieces.py:\d+.*lengths \[1, 3\]"):
        ag.function(f, jit_compile=True)(np.arange(4.0))


def test_split_with_wrong_lengths_raises_as_on_the_numpy_backend():
    def f(x):
        return ag.TensorArray(np.float64, size=2).split(x, [2, 3]).concat()

    for fn in (ag.function(f), ag.function(f, jit_compile=True)):
        with pytest.raises(ag.errors.InvalidArgumentError, match="must be non-negative and add up"):
            fn(np.arange(4.0))


def test_reading_an_unwritten_element_in_a_counted_loop_raises():
    """The counter's range spares the bounds check, never the check that the element was written."""
    def f(x):
        ta = ag.TensorArray(np.float64, size=3)
        ta = ta.write(0, x)
        total = x * 0
        for i in ag.range(3):
            total = total + ta.read(i)
        return total

    for fn in (ag.function(f), ag.function(f, jit_compile=True)):
        with pytest.raises(ag.errors.InvalidArgumentError, match="element 1 was read before it was written"):
            fn(np.float64(1.0))
