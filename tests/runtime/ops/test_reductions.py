"""Reductions and scans: dtype as NumPy gives it, axes removed or kept, unknown dims."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.backends.numpy.compiler import compile_graph
from runtime.ir.errors import StagingError
from runtime.ops import get_op
from runtime.ops.calls import Slot, Weak
from runtime.ops.reductions import METHODS, REDUCTIONS, SCANS, UFUNC_REDUCTIONS
from tests.runtime.ops.staging import check, stage
from tests.runtime.tracing import build

RNG = np.random.default_rng(1)
ARRAYS = {
    "int32": RNG.integers(-5, 5, (3, 4, 2)).astype(np.int32),
    "float32": RNG.uniform(-2, 2, (3, 4, 2)).astype(np.float32),
    "bool": RNG.integers(0, 2, (3, 4, 2)).astype(bool),
    "uint8": RNG.integers(0, 9, (3, 4, 2)).astype(np.uint8),
}
AXES = [None, 0, -1, (0, 2), 1]
NO_TUPLE_AXIS = {"argmax", "argmin", "nanargmax", "nanargmin"}



def accepts(fn, *args):
    try:
        with np.errstate(all="ignore"):
            fn(*args)
    except (TypeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", sorted(ARRAYS))
def test_reduction(name, dtype):
    fn = getattr(np, name)
    x = ARRAYS[dtype]
    for axis in AXES:
        if isinstance(axis, tuple) and name in NO_TUPLE_AXIS:
            continue
        for keepdims in (False, True):
            kwargs = {"axis": axis}
            if keepdims:
                kwargs["keepdims"] = True
            call = lambda t, kw=kwargs: fn(t, **kw)  # noqa: E731
            if not accepts(call, x):
                continue
            check(call, x)
            check(call, x, unknown=(0,))


def test_positional_axis_and_dtype():
    x = ARRAYS["int32"]
    check(lambda t: np.sum(t, 1), x)
    check(lambda t: np.mean(t, 0, np.float32), x)
    check(lambda t: np.mean(t, dtype=np.float32), x)
    check(lambda t: np.std(t, axis=1, ddof=1), x)
    check(lambda t: np.var(t, 0, None, None, 1), x)
    check(lambda t: np.sum(t, axis=0, initial=10), x)
    check(lambda t: np.count_nonzero(t, axis=(0, 1)), x)
    check(lambda t: np.sum(t, axis=np.int64(1)), x)
    check(lambda t: t.max(np.int32(0)), x)


def test_methods():
    x = ARRAYS["float32"]
    check(lambda t: t.sum(), x)
    check(lambda t: t.mean(axis=0), x)
    check(lambda t: t.max(axis=1, keepdims=True), x)
    check(lambda t: t.min(0), x)
    check(lambda t: t.prod(axis=-1), x)
    check(lambda t: t.argmax(), x)
    check(lambda t: t.argmin(axis=2), x)
    check(lambda t: (t > 0).any(axis=0), x)
    check(lambda t: (t > 0).all(), x)
    check(lambda t: t.std(), x)
    check(lambda t: t.var(axis=(0, 1)), x)
    check(lambda t: t.cumsum(axis=1), x)
    check(lambda t: t.cumprod(), x)


@pytest.mark.parametrize("name", sorted(METHODS))
@pytest.mark.parametrize("value", [np.float32(2.5), np.int8(-3), np.bool_(True), np.array(1.5)])
def test_array_methods_print_as_methods_and_take_numpy_scalars(name, value):
    """`x.sum()` in generated code: a graph input may arrive as a NumPy scalar, which has the methods."""
    fn = getattr(np, name)
    graph = build(lambda x: (fn(x), fn(x, None)), (np.asarray(value).dtype, ()))
    printed = f"{UFUNC_REDUCTIONS[name]}(x, None)" if name in UFUNC_REDUCTIONS else f"x.{name}("
    assert printed in compile_graph(graph).source
    got = compile_graph(graph)(value)
    expected = [fn(value), fn(value, None)]
    assert [(type(g), g) for g in got] == [(type(e), e) for e in expected]


def test_reductions_print_as_numpy_calls_when_the_array_is_no_input():
    mean = get_op("mean")
    assert mean.emit(["a"], {"axis": Weak(0)}) == "a.mean(axis=0)"
    assert mean.emit(["np.float32(1.5)"], {}) == "(np.float32(1.5)).mean()"
    total = get_op("sum")
    assert total.emit(["m"], {"args": (Weak(2.0),), "where": Slot(0)}) == "np.sum(2.0, where=m)"
    assert total.emit(["m"], {"args": (), "a": Slot(0)}) == "np.sum(a=m)"


def test_sum_and_prod_print_as_the_ufunc_reduction_with_all_axes_by_default():
    """`x.sum()` is `np.add.reduce(x, None)` without the method's Python wrapper; the
    ufunc's own default axis is 0, so a missing axis is spelled out."""
    total, product = get_op("sum"), get_op("prod")
    assert total.emit(["a"], {}) == "np.add.reduce(a, None)"
    assert total.emit(["a"], {"axis": Weak(0)}) == "np.add.reduce(a, axis=0)"
    assert total.emit(["a"], {"args": (Slot(0), Weak(1))}) == "np.add.reduce(a, 1)"
    assert total.emit(["a"], {"keepdims": Weak(True)}) == "np.add.reduce(a, None, keepdims=True)"
    assert product.emit(["a + b"], {}) == "np.multiply.reduce(a + b, None)"


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "float16", "float32", "float64"])
@pytest.mark.parametrize("form", [
    lambda t: t.sum(), lambda t: np.sum(t, 1), lambda t: t.sum(axis=(0, 2), keepdims=True),
    lambda t: np.prod(t, axis=-1), lambda t: t.prod(dtype=np.float64), lambda t: np.sum(t.T, initial=3),
])
def test_sum_and_prod_give_what_the_methods_give_bit_for_bit(dtype, form):
    x = RNG.uniform(-3, 3, (5, 4, 3)).astype(dtype)
    got = compile_graph(build(lambda t: (form(t),), (x.dtype, x.shape)))(x)[0]
    expected = form(x)
    assert type(got) is type(expected) and got.dtype == expected.dtype
    assert np.asarray(got).tobytes() == np.asarray(expected).tobytes()


@pytest.mark.parametrize("name", SCANS)
def test_scans(name):
    fn = getattr(np, name)
    for x in ARRAYS.values():
        check(fn, x)
        check(lambda t, f=fn: f(t, axis=1), x)
        check(lambda t, f=fn: f(t, axis=-1), x, unknown=(0,))
        check(lambda t, f=fn: f(t, axis=0, dtype=np.float64), x)


def test_unknown_shapes():
    x = ARRAYS["float32"]
    _, (out,) = stage(lambda t: t.sum(axis=1), [x], unknown=((0, 0),))
    assert out.shape == (None, 2)
    _, (out,) = stage(lambda t: t.sum(axis=0, keepdims=True), [x], unknown=((0, 0),))
    assert out.shape == (1, 4, 2)
    _, (out,) = stage(lambda t: t.sum(), [x], unknown_rank=(0,))
    assert out.shape == ()
    _, (out,) = stage(lambda t: t.sum(axis=0), [x], unknown_rank=(0,))
    assert out.shape is None
    _, (out,) = stage(np.cumsum, [x], unknown=(0,))
    assert out.shape == (None,)


def test_bad_axis_is_a_staging_error():
    with pytest.raises(StagingError, match="out of bounds"):
        stage(lambda t: t.sum(axis=3), [ARRAYS["float32"]])
    with pytest.raises(StagingError, match="repeated axis|duplicate"):
        stage(lambda t: t.sum(axis=(0, 0)), [ARRAYS["float32"]])


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["sum", "mean", "max", "prod", "any", "argmin", "std"]),
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.sampled_from([np.int8, np.int64, np.float16, np.float64, np.bool_]),
    st.data(),
)
def test_reduction_property(name, shape, dtype, data):
    x = RNG.integers(-3, 4, shape).astype(dtype)
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    keepdims = data.draw(st.booleans()) if name != "argmin" or axis is not None else False
    call = lambda t: getattr(np, name)(t, axis=axis, keepdims=keepdims)  # noqa: E731
    if accepts(call, x):
        check(call, x)
        check(call, x, unknown=(0,))
