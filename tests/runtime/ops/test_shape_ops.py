"""Shape and joining ops: rules over unknown dims, and their errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.ir.errors import StagingError
from tests.runtime.ops.staging import check, stage

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def shape_of(fn, values, **kw):
    _, (out,) = stage(fn, values, **kw)
    return out.shape


def test_reshape_rules():
    assert shape_of(lambda t: t.reshape(-1, 4), [X], unknown=[(0, 0)]) == (None, 4)
    assert shape_of(lambda t: t.reshape(6, 4), [X], unknown=[(0, 0)]) == (6, 4)
    assert shape_of(lambda t: t.reshape(-1), [X], unknown_rank=[0]) == (None,)
    assert shape_of(lambda t: t.reshape(np.shape(t)[0], -1), [X], unknown=[(0, 0)]) == (None, None)
    assert shape_of(lambda t, s: np.reshape(t, s), [X, np.array([4, 6])]) == (None, None)
    with pytest.raises(StagingError, match="cannot reshape"):
        stage(lambda t: t.reshape(5, -1), [X])
    with pytest.raises(StagingError, match="negative dimension"):
        stage(lambda t: t.reshape(-2, 12), [X])


def test_transpose_squeeze_expand_dims():
    assert shape_of(lambda t: t.transpose(2, 0, 1), [X], unknown=[(0, 1)]) == (4, 2, None)
    assert shape_of(lambda t: t.T, [X], unknown_rank=[0]) is None
    assert shape_of(lambda t: np.squeeze(t[:, :1], axis=1), [X], unknown=[(0, 0)]) == (None, 4)
    assert shape_of(lambda t: np.squeeze(t, axis=0), [X], unknown=[(0, 0)]) == (3, 4)
    assert shape_of(lambda t: np.expand_dims(t, -1), [X], unknown=[(0, 2)]) == (2, 3, None, 1)
    assert shape_of(np.squeeze, [X], unknown=[(0, 0)]) is None
    check(np.squeeze, X[:1], unknown=[(0, 0)])
    with pytest.raises(StagingError, match="size 3, not 1"):
        stage(lambda t: np.squeeze(t, 1), [X])
    with pytest.raises(StagingError, match="don't match"):
        stage(lambda t: t.transpose(1, 0), [X])


def test_broadcast_to():
    check(lambda t: np.broadcast_to(t, (5, 2, 3, 4)), X)
    assert shape_of(lambda t: np.broadcast_to(t[:1], (7, 3, 4)), [X], unknown=[(0, 0)]) == (7, 3, 4)
    with pytest.raises(StagingError):
        stage(lambda t: np.broadcast_to(t, (3, 4)), [X])


def test_concatenate_and_stack():
    assert shape_of(lambda t: np.concatenate([t, t], axis=2), [X], unknown=[(0, 0)]) == (None, 3, 8)
    assert shape_of(lambda t: np.concatenate([t, t[:1]]), [X], unknown=[(0, 1)]) == (3, None, 4)
    assert shape_of(lambda t, u: np.concatenate([t, u]), [X, X], unknown=[(0, 1)]) == (4, 3, 4)
    assert shape_of(lambda t: np.concatenate([t, t]), [X], unknown_rank=[0]) is None
    assert shape_of(lambda t: np.stack([t, t], axis=-1), [X], unknown=[(0, 2)]) == (2, 3, None, 2)
    assert shape_of(lambda t, u: np.stack([t, u]), [X, X], unknown=[(0, 0)]) == (2, 2, 3, 4)
    check(lambda t: np.concatenate([t, t], axis=-1), X)
    check(lambda t: np.concatenate([t, np.zeros((1, 3, 4), np.int8)]), X)
    check(lambda t: np.stack((t[0], t[1], [[1.0] * 4] * 3), axis=1), X)
    with pytest.raises(StagingError, match="shapes differ"):
        stage(lambda t: np.concatenate([t, t[:, :2]]), [X])
    with pytest.raises(StagingError, match="same shape|shapes differ"):
        stage(lambda t: np.stack([t, t[:1]]), [X])
    with pytest.raises(StagingError, match=r"iterator at .*test_shape_ops.py:\d+"):
        stage(lambda t: np.stack(t), [X])


def test_hstack_vstack():
    check(lambda t: np.hstack([t[0, 0], t[1, 1]]), X)
    check(lambda t: np.vstack([t[0, 0], t[1, 1]]), X)
    check(lambda t: np.hstack([t[0], t[1]]), X)
    check(lambda t: np.vstack([t[0], t[1]]), X)
    check(lambda t: np.hstack([t[0, 0, 0], t[1, 1, 1]]), X)


def test_where_clip_like():
    assert shape_of(lambda t: np.where(t > 0, t, 0), [X], unknown=[(0, 0)]) == (None, 3, 4)
    assert shape_of(lambda t: np.where(t[:1] > 0, t, 0), [X], unknown=[(0, 0)]) == (None, 3, 4)
    check(lambda t: np.where(t > 3, 1, 0.5), X)
    check(lambda t: np.where(t > 3, t.astype(np.int8), 1), X)
    check(lambda t: np.clip(t.astype(np.int16), 0, 5), X)
    check(lambda t: np.clip(t.astype(np.int16), 0.5, None), X)
    check(lambda t: np.zeros_like(t, shape=(2, 2)), X)
    assert shape_of(np.ones_like, [X], unknown_rank=[0]) is None


def test_sort_argsort():
    check(lambda t: np.sort(-t, axis=1), X)
    check(lambda t: np.argsort(-t, axis=None), X)
    assert shape_of(lambda t: np.sort(t, axis=None), [X], unknown=[(0, 0)]) == (None,)
    with pytest.raises(StagingError):
        stage(lambda t: np.sort(t, axis=3), [X])


@settings(max_examples=30, deadline=None)
@given(st.permutations([0, 1, 2]), st.integers(-4, 3), st.integers(0, 2))
def test_random_layout_ops(perm, axis, hidden):
    check(lambda t: np.transpose(t, perm), X, unknown=[(0, hidden)], exact=False)
    check(lambda t: np.transpose(t, perm), X)
    check(lambda t: np.expand_dims(t, axis), X)
    check(lambda t: np.expand_dims(t, axis), X, unknown=[(0, hidden)], exact=False)
    if -3 <= axis < 3:
        check(lambda t: np.concatenate([t, t], axis=axis), X, unknown=[(0, hidden)], exact=False)
        check(lambda t: np.stack([t, t], axis=axis), X)
