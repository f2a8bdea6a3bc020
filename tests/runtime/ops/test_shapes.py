"""Shape rules over unknown dims: broadcasting, reductions, reshape, matmul, probing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.ir.errors import StagingError
from runtime.ir.types import TensorType
from runtime.ops.arguments import bind_arguments, signature_of
from runtime.ops.probing import elementwise_type, probe_type
from runtime.ops.shapes import broadcast, matmul_shape, normalize_axes, reduced, reshaped


def test_broadcast_unknown_dims():
    assert broadcast((None,), (3,)) == (3,)
    assert broadcast((None,), (1,)) == (None,)
    assert broadcast((None,), (None,)) == (None,)
    assert broadcast((2, 1, None), (4, 1)) == (2, 4, None)
    assert broadcast((), (None, 3)) == (None, 3)
    assert broadcast((3,), None) is None
    assert broadcast() == ()
    assert broadcast((2, None), (), (2, None)) == (2, None)  # equal shapes, scalars aside
    assert broadcast((), ()) == ()
    with pytest.raises(StagingError, match=r"shapes \(2,\) \(3,\)"):
        broadcast((2,), (3,))


@settings(deadline=None)
@given(st.lists(st.lists(st.sampled_from([1, 2, 3]), max_size=3), min_size=1, max_size=3), st.data())
def test_broadcast_matches_numpy_when_known(shapes, data):
    shapes = [tuple(s) for s in shapes]
    try:
        expected = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(StagingError):
            broadcast(*shapes)
        return
    assert broadcast(*shapes) == expected
    # hiding a dim never contradicts NumPy
    hidden = [tuple(None if data.draw(st.booleans()) else d for d in s) for s in shapes]
    out = broadcast(*hidden)
    assert len(out) == len(expected)
    assert all(o is None or o == e for o, e in zip(out, expected))


def test_reduced():
    assert reduced((2, None, 4), 1, False) == (2, 4)
    assert reduced((2, None, 4), (0, -1), True) == (1, None, 1)
    assert reduced((2, 3), None, False) == ()
    assert reduced((2, 3), None, True) == (1, 1)
    assert reduced(None, None, False) == ()
    assert reduced(None, 0, False) is None
    with pytest.raises(StagingError):
        reduced((2,), 1, False)
    assert normalize_axes(-1, 3) == (2,)


def test_reshaped():
    assert reshaped((2, 6), (3, -1)) == (3, 4)
    assert reshaped((None, 6), (3, -1)) == (3, None)
    assert reshaped((None, 6), (-1, 6)) == (None, 6)
    assert reshaped(None, (4, -1)) == (4, None)
    assert reshaped((2, 6), (None, 3)) == (None, 3)
    with pytest.raises(StagingError, match="cannot reshape"):
        reshaped((2, 6), (5, -1))
    with pytest.raises(StagingError, match="cannot reshape"):
        reshaped((2, 6), (5, 2))
    with pytest.raises(StagingError, match="one unknown"):
        reshaped((2, 6), (-1, -1))


def test_matmul_shape():
    t = lambda *s: TensorType(np.float32, s)  # noqa: E731
    assert matmul_shape(t(2, 3), t(3, 4)) == (2, 4)
    assert matmul_shape(t(3), t(3, 4)) == (4,)
    assert matmul_shape(t(2, 3), t(3)) == (2,)
    assert matmul_shape(t(3), t(3)) == ()
    assert matmul_shape(t(5, 1, 2, 3), t(7, 3, None)) == (5, 7, 2, None)
    assert matmul_shape(t(None, 3), t(None, 4)) == (None, 4)
    assert matmul_shape(TensorType(np.float32, None), t(3)) is None
    with pytest.raises(StagingError, match="contracted"):
        matmul_shape(t(2, 3), t(4, 2))


def test_probe_type_marks_moving_dims_unknown():
    t = TensorType(np.float32, (None, 4))
    assert probe_type(np.diag, (TensorType(np.float32, (None,)),), {}) == TensorType(np.float32, (None, None))
    assert probe_type(np.diagonal, (t,), {}) == TensorType(np.float32, (None,))
    assert probe_type(np.tile, (t, (2, 1)), {}) == TensorType(np.float32, (None, 4))
    assert probe_type(np.sum, (TensorType(np.int8, None),), {}).shape is None


def test_elementwise_dtype_is_the_same_when_asked_again():
    """Answers are remembered per dtypes and Python values; errors raise every time."""
    int8 = TensorType(np.int8, (3,))
    for _ in range(2):
        assert elementwise_type(np.add, (int8, 1), {}) == TensorType(np.int8, (3,))
        assert elementwise_type(np.add, (int8, 1.5), {}).dtype == np.float64
        assert elementwise_type(np.add, (int8, True), {}).dtype == np.int8
        assert elementwise_type(np.add, (int8, (1, 2, 3)), {}).dtype == np.add(np.int8([1, 2, 3]), (1, 2, 3)).dtype
        with pytest.raises(OverflowError, match="1000"):  # define's infer makes it a StagingError
            elementwise_type(np.add, (int8, 1000), {})


@pytest.mark.parametrize("fn", [np.sum, np.mean, np.cumsum, np.median, np.tile, np.moveaxis, np.sort, np.clip])
def test_bind_arguments_binds_as_inspect_does(fn):
    """Same arguments, in the signature's order, and the same TypeError for a bad call."""
    names = list(signature_of(fn).parameters) + ["bogus"]
    for count in range(6):
        args = tuple(range(count))
        for keywords in [(), *((n,) for n in names), *zip(names, names[2:])]:
            kwargs = {key: key for key in keywords}
            try:
                expected = dict(signature_of(fn).bind(*args, **kwargs).arguments)
            except TypeError as error:
                with pytest.raises(TypeError, match=str(error)):
                    bind_arguments(fn, args, kwargs)
                continue
            got = bind_arguments(fn, args, kwargs)
            assert list(got.items()) == list(expected.items())
