"""Tensor.__getitem__ ("index"): basic and advanced keys, staged indices, unknown dims."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.ir.errors import StagingError
from runtime.ops import get_op
from tests.runtime.ops.staging import check, stage

X = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5).astype(np.float32)

KEYS = [
    0, -1, (1, 2), (1, -1, 0, 4), slice(None), slice(1, None), slice(None, None, -1),
    slice(-3, None, 2), (slice(None), 1), (Ellipsis, 0), (0, Ellipsis, slice(None, 2)),
    None, (None, 0), (slice(None), None, 1, None), Ellipsis, (), (0, 1, 2, 3),
    (slice(5, 1, -2), slice(None), slice(10, 20)), (Ellipsis, None),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_keys(key):
    check(lambda t: t[key], X)
    check(lambda t: t[key], X, unknown=(0,))


ADVANCED = [
    (slice(None), [0], Ellipsis, 0, 0), (slice(None), [0], None, 1), ([0, 1], Ellipsis, [1, 2]),
    [0, 1, 1], (slice(None), [0, 2]), ([1, 0], [2, 1]), (slice(None), [0, 2], 1),
    (0, slice(None), [1, 3]), ([[0], [1]], slice(None), [0, 1, 2]), (Ellipsis, [4, 0]),
    (slice(None), [0, 1], slice(None), [2, 3]), (1, [0, 2], [1, 3]), (None, [0, 1]),
]


@pytest.mark.parametrize("key", ADVANCED, ids=repr)
def test_integer_array_keys(key):
    check(lambda t: t[key], X)
    check(lambda t: t[key], X, unknown=(0,))


def test_array_and_tensor_index_inputs():
    idx = np.array([1, 0, 1])
    check(lambda t, i: t[i], X, idx)
    check(lambda t, i: t[:, i], X, idx)
    check(lambda t, i: t[i, i], X, idx)
    check(lambda t, i: t[1, i], X, np.int64(2))
    check(lambda t, i: t[i], X, np.int64(-1))
    check(lambda t, i: t[..., i], X, np.int32(3))
    check(lambda t, i: t[i:i + 2], np.arange(10), np.int64(3), exact=False)
    check(lambda t, i: t[::i], np.arange(10), np.int64(3), exact=False)


def test_staged_scalar_index_drops_the_dim():
    graph, (out,) = stage(lambda t, i: t[i], [X, np.int64(1)])
    assert out.shape == (3, 4, 5)
    graph, (out,) = stage(lambda t, i: t[i:], [np.arange(10), np.int64(1)])
    assert out.shape == (None,)


def test_boolean_masks():
    mask = X > 50
    check(lambda t, m: t[m], X, mask, exact=False)
    check(lambda t, m: t[m], X, mask[..., 0], exact=False)
    with pytest.raises(StagingError, match="boolean index"):
        stage(lambda t, m: t[m], [X, mask[:, :, 0]])
    check(lambda t, m: t[0, m[0, :, :, 0]], X, mask, exact=False)
    check(lambda t: t[t > 3], np.arange(6.0), exact=False)
    check(lambda t: t[[True, False]], X, exact=False)
    graph, (out,) = stage(lambda t: t[t > 3], [np.arange(6.0)])
    assert out.shape == (None,)
    graph, (out,) = stage(lambda t, m: t[:, m], [X, mask[0, :, :, 0]])
    assert out.shape == (2, None, 5)
    check(lambda t: t[True], X, exact=False)


def test_unknown_rank_gives_unknown_shape():
    graph, (out,) = stage(lambda t: t[0], [X], unknown_rank=(0,))
    assert out.shape is None and out.dtype == X.dtype


def test_bad_keys_are_staging_errors():
    with pytest.raises(StagingError, match="out of bounds"):
        stage(lambda t: t[5], [X])
    with pytest.raises(StagingError, match="too many indices"):
        stage(lambda t: t[0, 0, 0, 0, 0], [X])
    with pytest.raises(StagingError, match="integers"):
        stage(lambda t, i: t[i], [X, np.float64(1.0)])
    with pytest.raises(StagingError, match="single ellipsis"):
        stage(lambda t: t[..., ...], [X])


def test_setitem_is_a_staging_error():
    def assign(t):
        t[0] = 1

    with pytest.raises(StagingError, match="immutable"):
        stage(assign, [X])


def test_emit_reads_like_python():
    graph, _ = stage(lambda t, i: t[i, 1:-1:2, None, ...], [X, np.int64(0)])
    node = graph.nodes[-1]
    assert get_op("index").emit(["x", "i"], node.attrs) == "x[i, 1:-1:2, None, ...]"
    graph, _ = stage(lambda t: t[()], [X])
    assert get_op("index").emit(["x"], graph.nodes[-1].attrs) == "x[()]"
    graph, _ = stage(lambda t: t[0,], [X])
    assert get_op("index").emit(["x"], graph.nodes[-1].attrs) == "x[0,]"


@st.composite
def basic_keys(draw):
    rank = X.ndim
    items = []
    for _ in range(draw(st.integers(0, rank))):
        kind = draw(st.sampled_from(["int", "slice", "none"]))
        if kind == "int":
            items.append(draw(st.integers(-2, 1)))
        elif kind == "slice":
            items.append(slice(draw(st.none() | st.integers(-6, 6)), draw(st.none() | st.integers(-6, 6)),
                               draw(st.none() | st.sampled_from([-3, -1, 1, 2]))))
        else:
            items.append(None)
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return tuple(items)


@settings(max_examples=60, deadline=None)
@given(basic_keys(), st.booleans())
def test_random_basic_keys(key, unknown):
    check(lambda t: t[key], X, unknown=(0,) if unknown else ())


@st.composite
def advanced_keys(draw):
    """Keys mixing ints, slices, None, Ellipsis and integer/boolean arrays (NumPy's placement rules)."""
    items = []
    dim = 0
    while dim < X.ndim and draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "slice", "none", "array", "mask"]))
        size = X.shape[dim]
        if kind == "int":
            items.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            items.append(slice(draw(st.none() | st.integers(0, size)), None, draw(st.sampled_from([None, 2, -1]))))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "array":
            length = draw(st.integers(1, 3))
            items.append(np.array(draw(st.lists(st.integers(-size, size - 1), min_size=length, max_size=length))))
        else:
            items.append(np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size))))
        dim += 1
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return tuple(items)


@settings(max_examples=80, deadline=None)
@given(advanced_keys(), st.booleans())
def test_random_advanced_keys(key, as_inputs):
    arrays = [k for k in key if isinstance(k, np.ndarray)]
    try:
        X[key]
    except IndexError:
        return  # index arrays that do not broadcast together
    if as_inputs:
        def index(t, *staged):
            it = iter(staged)
            return t[tuple(next(it) if isinstance(k, np.ndarray) else k for k in key)]

        check(index, X, *arrays, exact=not any(a.dtype == bool for a in arrays))
    else:
        check(lambda t: t[key], X, exact=not any(a.dtype == bool for a in arrays))
        check(lambda t: t[key], X, unknown=(0,))


def test_a_tensor_indexing_a_python_list_is_an_int64_tensor_with_its_article():
    with pytest.raises(StagingError, match=r"an int64\[\] Tensor \(x0\) was used as a Python int/index"):
        stage(lambda i: [1, 2, 3][i], [np.int64(1)])
