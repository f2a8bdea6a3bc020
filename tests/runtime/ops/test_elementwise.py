"""Every NumPy ufunc staged: dtype by NumPy's own resolution, broadcast shapes, weak scalars."""

from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.ir.errors import StagingError
from runtime.ir.types import TensorType
from runtime.ops import get_op
from runtime.ops.elementwise import UFUNCS
from tests.runtime.ops.staging import check, stage

DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint16, np.float32, np.float64, np.complex64]
RNG = np.random.default_rng(0)


def sample(dtype, shape):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -4
        return RNG.integers(low, 5, shape).astype(dtype)
    values = RNG.uniform(-3, 3, shape)
    if dtype.kind == "c":
        values = values + 1j * RNG.uniform(-3, 3, shape)
    return values.astype(dtype)


def numpy_accepts(fn, *values):
    """True if NumPy runs it, False on a dtype error, None on a value error (e.g. 2 ** -1)."""
    try:
        with np.errstate(all="ignore"):
            fn(*values)
    except TypeError:
        return False
    except (ValueError, OverflowError):
        return None
    return True


CALL_UFUNCS = sorted(name for name, u in UFUNCS.items() if u.signature is None and u.nin in (1, 2))


@pytest.mark.parametrize("name", CALL_UFUNCS)
def test_ufunc_matches_numpy(name):
    ufunc = UFUNCS[name]
    if ufunc.nin == 1:
        combos = [(d,) for d in DTYPES]
    else:
        combos = [(d, d) for d in DTYPES] + [(np.int32, np.float32), (np.bool_, np.int8), (np.int64, np.float32), (np.uint16, np.int8)]
    shapes = [(2, 3)] if ufunc.nin == 1 else [(2, 3), (3,)]
    checked = 0
    for combo in combos:
        values = [sample(d, s) for d, s in zip(combo, shapes)]
        accepted = numpy_accepts(ufunc, *values)
        if accepted is None:
            continue
        if not accepted:
            with pytest.raises((StagingError, TypeError)):
                stage(ufunc, values)
            continue
        check(ufunc, *values)
        check(ufunc, *values, unknown=(0,))
        checked += 1
    assert checked or name in ("isnat",)


@pytest.mark.parametrize("name", ["matmul", "vecdot", "matvec", "vecmat"])
def test_gufuncs(name):
    ufunc = getattr(np, name)
    a = sample(np.float32, (2, 3, 3))
    b = sample(np.int64, (3, 3)) if name in ("matmul",) else sample(np.int64, (3,))
    if name == "vecdot":
        b = sample(np.int64, (3,))
    if name == "vecmat":
        a, b = sample(np.float32, (3,)), sample(np.int64, (2, 3, 3))
    check(ufunc, a, b)
    check(ufunc, a, b, unknown=(0,))


def test_multi_output_ufuncs():
    x = sample(np.float64, (4,))
    check(np.modf, x)
    check(np.frexp, x)
    check(np.divmod, sample(np.int32, (3,)), 3)
    check(divmod, sample(np.int32, (3,)), np.int32(2))


SCALARS = [1, -2, 1.5, True, 2**40, 0.5j]
SCALAR_DTYPES = [np.bool_, np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64, np.complex64]
OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.pow,
             operator.mod, operator.lt, operator.eq, operator.ne, np.maximum, np.arctan2]


@pytest.mark.parametrize("dtype", SCALAR_DTYPES, ids=lambda d: np.dtype(d).name)
def test_python_scalars_are_weak(dtype):
    """NEP 50: int64 tensor + 1 is int64, float32 + 1.5 is float32, int + 1.5 is float64."""
    x = sample(dtype, (3,))
    for op, scalar in itertools.product(OPERATORS, SCALARS):
        for fn in (lambda t, op=op, s=scalar: op(t, s), lambda t, op=op, s=scalar: op(s, t)):
            accepted = numpy_accepts(fn, x)
            if accepted is None and op in (operator.pow,):
                continue
            if not accepted:
                with pytest.raises((StagingError, TypeError, OverflowError)):
                    stage(fn, [x])
                continue
            check(fn, x)


def test_weak_examples():
    i64, f32 = (TensorType(np.dtype(d), (2,)) for d in (np.int64, np.float32))
    _, (a,) = stage(lambda t: t + 1, [np.zeros(2, np.int64)])
    _, (b,) = stage(lambda t: t + 1.5, [np.zeros(2, np.float32)])
    _, (c,) = stage(lambda t: t + 1.5, [np.zeros(2, np.int32)])
    assert (a.type, b.type, c.type) == (i64, f32, TensorType(np.float64, (2,)))


def test_operators_emit_as_operators():
    graph, (out,) = stage(lambda a, b: -(a + b) * 2 - 1 ** a, [np.zeros(2), np.zeros(2)])
    emitted = [get_op(n.op).emit([i.name for i in n.inputs], n.attrs) for n in graph.nodes if n.op not in ("input", "constant")]
    assert emitted == ["x0 + x1", "-add", "negative * 2", "1 ** x0", "multiply - power"]


def test_negative_literal_is_parenthesised():
    check(lambda a: (-2) ** a, np.arange(3))
    check(lambda a: np.power(-2.5, a), np.arange(3.0))


def test_non_finite_scalars_emit():
    check(lambda a: a + float("inf"), np.arange(3.0))
    check(lambda a: np.maximum(a, float("nan")), np.arange(3.0))


def test_reduce_accumulate_outer():
    x = sample(np.int32, (3, 4))
    b = sample(np.bool_, (3, 4))
    for ufunc in (np.add, np.multiply, np.maximum, np.minimum):
        check(lambda t, u=ufunc: u.reduce(t), x)
        check(lambda t, u=ufunc: u.reduce(t, axis=1, keepdims=True), x)
        check(lambda t, u=ufunc: u.reduce(t, axis=None), x, unknown=(0,))
        check(lambda t, u=ufunc: u.accumulate(t, axis=1), x)
        check(lambda t, u=ufunc: u.outer(t, t[0]), x)
    check(lambda t: np.logical_and.reduce(t, axis=0), b)
    check(lambda t: np.logical_or.reduce(t), b)
    check(lambda t: np.add.reduce(t, dtype=np.float32), x)


def test_ufunc_out_is_a_staging_error():
    with pytest.raises(StagingError, match="out="):
        stage(lambda t: np.add(t, 1, out=t), [np.zeros(2)])


def test_ufunc_keywords():
    check(lambda t: np.add(t, 1, dtype=np.float32), np.arange(3))
    check(lambda t: np.multiply(t, 2.5, casting="unsafe", dtype=np.int16), np.arange(3))


def test_cast():
    x = np.array([1.7, -2.2, 0.0])
    for dtype in (np.int32, np.bool_, np.float32, np.uint8, np.complex128):
        check(lambda t, d=dtype: t.astype(d), x)
    graph, (out,) = stage(lambda t: t.astype(np.int64), [x])
    assert out.type == TensorType(np.int64, (3,))


def test_broadcast_mismatch_is_a_staging_error():
    with pytest.raises(StagingError, match="broadcast"):
        stage(np.add, [np.zeros((2, 3)), np.zeros((4,))])


def test_unknown_dims_broadcast():
    graph, (out,) = stage(np.add, [np.zeros((1, 3)), np.zeros((4, 1))], unknown=(0,))
    assert out.shape == (4, None)
    graph, (out,) = stage(np.add, [np.zeros((5, 3)), np.zeros((5, 3))], unknown=(0, 1))
    assert out.shape == (None, None)
    graph, (out,) = stage(np.add, [np.zeros((5, 3)), np.zeros((3,))], unknown_rank=(0,))
    assert out.shape is None


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["add", "subtract", "multiply", "divide", "power", "maximum", "hypot", "less_equal", "logaddexp"]),
    st.sampled_from([np.int16, np.int64, np.float32, np.float64]),
    st.sampled_from([np.int16, np.int64, np.float32, np.float64]),
    st.lists(st.integers(1, 3), min_size=0, max_size=3),
    st.data(),
)
def test_binary_broadcasting_property(name, da, db, shape, data):
    ufunc = UFUNCS[name]
    other = tuple(data.draw(st.sampled_from([1, d])) for d in shape[data.draw(st.integers(0, len(shape))):])
    a, b = sample(da, tuple(shape)), sample(db, other)
    if numpy_accepts(ufunc, a, b):
        check(ufunc, a, b)
        check(ufunc, a, b, unknown=(1,))
