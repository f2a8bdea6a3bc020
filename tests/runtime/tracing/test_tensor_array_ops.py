"""TensorArray.gather/scatter/concat/split: staged equal to eager, eager equal to NumPy, errors that say why."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from runtime.ir.errors import InvalidArgumentError, StagingError
from runtime.tracing.tensor_array import TensorArray


def _both(fn, *args):
    """fn run eagerly and as a Function: the same values and dtypes."""
    eager, staged = fn(*args), ag.function(fn)(*args)
    for a, b in zip(eager, staged):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    return eager


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=6), st.integers(0, 2**16))
def test_split_then_concat_gives_back_the_value(lengths, seed):
    value = np.random.default_rng(seed).normal(size=(sum(lengths), 2)).astype(np.float32)

    def f(value, lengths):
        ta = TensorArray(np.float32).split(value, lengths)
        return ta.concat(), ta.size(), ta.read(0)

    concat, size, first = _both(f, value, np.asarray(lengths))
    np.testing.assert_array_equal(concat, value)
    assert size == len(lengths) and first.shape == (lengths[0], 2)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.data())
def test_scatter_then_gather_is_a_permutation(size, data):
    order = np.array(data.draw(st.permutations(range(size))))
    picks = np.array(data.draw(st.lists(st.integers(0, size - 1), max_size=5)), dtype=np.int64)
    value = np.arange(size * 3, dtype=np.int64).reshape(size, 3)

    def f(value, order, picks):
        ta = TensorArray(np.float64, size=size, element_shape=(3,)).scatter(order, value)
        return ta.stack(), ta.gather(picks)

    stacked, gathered = _both(f, value, order, picks)
    expected = np.empty((size, 3))
    expected[order] = value
    np.testing.assert_array_equal(stacked, expected)
    np.testing.assert_array_equal(gathered, expected[picks].reshape(len(picks), 3))


def test_staged_types():
    def f(x, idx):
        ta = TensorArray(np.float64, size=4).unstack(x)
        pieces = TensorArray(np.float64).split(x, [1, 3])
        same = TensorArray(np.float64).split(x, np.array([2, 2]))
        return ta.gather(idx), ta.gather([0, 1]), pieces.concat(), same.read(0)

    cf = ag.function(f).get_concrete_function(ag.TensorSpec((4, 5), np.float64), ag.TensorSpec((None,), np.int64))
    out = cf(np.ones((4, 5)), np.array([3, 3, 1]))
    assert [o.shape for o in out] == [(3, 5), (2, 5), (4, 5), (2, 5)]
    assert "shape=(None, 5)" in str(cf) and "shape=(2, 5)" in str(cf), str(cf)


def test_scatter_in_a_loop_fills_rows():
    def f(x):
        ta = TensorArray(np.float64, size=6)
        for k in ag.range(3):
            ta = ta.scatter(np.stack([2 * k, 2 * k + 1]), x[2 * k: 2 * k + 2] * 10)
        return (ta.stack(),)

    _both(f, np.arange(6.0).reshape(6, 1))


def test_dynamic_scatter_grows():
    ta = TensorArray(np.int64, dynamic_size=True).scatter([0, 2], np.array([5, 7]))
    assert ta.size() == 3
    with pytest.raises(InvalidArgumentError, match="element 1 was read before it was written"):
        ta.gather([1])
    with pytest.raises(InvalidArgumentError, match="element 1 was never written"):
        ta.concat()


def test_errors():
    with pytest.raises(InvalidArgumentError, match=r"lengths \[1, 1\] must be non-negative and add up to .* 3"):
        TensorArray(np.float64).split(np.ones(3), [1, 1])
    with pytest.raises(StagingError, match="2 indices but the value has 3 rows"):
        TensorArray(np.float64, size=3).scatter([0, 1], np.ones(3))
    with pytest.raises(InvalidArgumentError, match="rank >= 1"):
        TensorArray(np.float64, size=1).write(0, 1.0).concat()
    with pytest.raises(InvalidArgumentError, match="element shape is unknown"):
        TensorArray(np.float64).concat()
    assert TensorArray(np.float64, element_shape=(None, 3)).concat().shape == (0, 3)
    with pytest.raises(StagingError, match="2 indices but the value has 3 rows"):
        ag.function(lambda v: TensorArray(np.float64, size=3).scatter(np.array([0, 1]), v).stack())(np.ones((3, 2)))
    with pytest.raises(StagingError, match="cannot write a float64 value into a TensorArray of int64"):
        ag.function(lambda v: TensorArray(np.int64, size=3).scatter([0, 1, 2], v).stack())(np.ones(3))
