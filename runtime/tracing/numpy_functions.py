"""The NumPy functions that stage when given a Tensor (`SUPPORTED_NUMPY`).

NumPy hands every array function applied to a Tensor to
`Tensor.__array_function__`, which calls `stage_numpy`; ufuncs arrive through
`__array_ufunc__` instead (see `elementwise.py`) and are listed here too.

| family | functions | result shape |
| --- | --- | --- |
| ufuncs | every `np.<ufunc>`: add, multiply, sqrt, exp, log, tanh, sin, cos, arctan2, hypot, power, mod, floor_divide, maximum, minimum, logical_and/or/not, isnan, isinf, isfinite, sign, floor, ceil, abs, square, log1p, expm1, ... | broadcast |
| reductions | sum, mean, prod, max/amax, min/amin, argmax, argmin, any, all, std, var, median, ptp, count_nonzero, average, nan* | axis removed (kept with keepdims) |
| scans | cumsum, cumprod, nancumsum, nancumprod, cumulative_sum, cumulative_prod | same; flat without axis |
| elementwise functions | where (3 arguments), clip, isclose, round/around, nan_to_num, real, imag, angle, sinc, i0, isreal, iscomplex, digitize, polyval, unwrap | broadcast |
| shape | reshape, transpose/permute_dims, matrix_transpose, squeeze, expand_dims, broadcast_to, ravel, swapaxes, moveaxis, flip, fliplr, flipud, roll, rot90, atleast_1d/2d/3d, resize, copy | rule per function |
| joining | concatenate, stack, hstack, vstack, column_stack, dstack, append, tile, repeat, pad | rule per function |
| creation | zeros_like, ones_like, full_like, empty_like (zeros: staged values are deterministic), linspace/logspace/geomspace (concrete num), vander; np.zeros/ones/full/empty/eye with staged sizes through `creation.CALL_OVERRIDES` | input's shape |
| linear algebra | matmul, dot, inner, outer, einsum, tensordot, kron, cross, convolve, trace, diag, diagonal, triu, tril, cov, corrcoef, trapezoid, linalg.norm, linalg.det, linalg.inv, linalg.solve, linalg.eigh, linalg.eigvalsh, linalg.svd, linalg.qr, linalg.cholesky, linalg.lstsq, linalg.slogdet, linalg.pinv, linalg.matrix_power (several results: NumPy's named tuple of Tensors) | NumPy's |
| fft | fft.fft, ifft, rfft, irfft, fft2, ifft2, fftn, ifftn, fftshift, ifftshift (concrete n=/s=/axes=), fftfreq, rfftfreq (staged d) | NumPy's |
| sorting, searching | sort, argsort, partition, argpartition, searchsorted, take, take_along_axis, diff, ediff1d, interp, percentile, quantile, nanpercentile, nanquantile, histogram_bin_edges, isin | NumPy's |
| comparisons | array_equal, array_equiv, allclose | scalar bool |
| data-dependent | nonzero, where (1 argument), argwhere, flatnonzero, unique (plain form), unique_values, bincount, repeat (tensor repeats) | unknown length (None) |
| introspection | shape (Python ints when known), size, ndim, result_type, asarray/asanyarray/array/astype (a Tensor stays one; dtype= casts), split/array_split (a list), broadcast_arrays (a tuple) | |

Arguments that decide a result's shape (axis=, reps=, num=, ...) must be
Python values. Anything else applied to a Tensor raises StagingError naming
the function and the closest supported ones.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ops import decompositions, elementwise, linalg, spectral
from runtime.ops.calls import staging_error
from runtime.ops.numpy_api import OP_FUNCTIONS
from runtime.ops.shapes import known_product
from runtime.tracing.creation import asarray
from runtime.tracing.record import stage
from runtime.tracing.staged import stages_as_tensor

__all__ = ["SUPPORTED_NUMPY", "stage_numpy", "NUMPY_FUNCTIONS"]


def _shape(a: Any) -> Any:
    t = _tensor(a)
    if t.shape is None:
        return stage("shape", (t,), {})
    if None not in t.shape:
        return t.shape
    full = stage("shape", (t,), {})
    return tuple(d if d is not None else full[i] for i, d in enumerate(t.shape))


def _size(a: Any, axis: Any = None) -> Any:
    t = _tensor(a)
    if axis is not None:
        return _shape(t)[axis]
    if t.type.is_fully_defined:
        return known_product(t.shape)
    return stage("size", (t,), {})


def _ndim(a: Any) -> Any:
    t = _tensor(a)
    return t.ndim if t.ndim is not None else stage("ndim", (t,), {})


def _tensor(a: Any) -> Any:
    return a.__autograph_tensor__() if hasattr(a, "__autograph_tensor__") else a


def _asarray(a: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
    return asarray(a, dtype)


def _astype(a: Any, dtype: Any, **kwargs: Any) -> Any:
    return stage("cast", (_tensor(a),), {"dtype": np.dtype(dtype)})


def _empty_like(*args: Any, **kwargs: Any) -> Any:
    return stage("zeros_like", args, kwargs)


def _nonzero(a: Any) -> tuple:
    t = _tensor(a)
    if t.ndim is None:
        raise staging_error("np.nonzero of a tensor of unknown rank; use np.argwhere instead")
    return tuple(stage("nonzero", (t,), {"index": k}) for k in range(max(t.ndim, 1)))


def _where(condition: Any, *args: Any, **kwargs: Any) -> Any:
    """np.where(c, x, y) selects; np.where(c) alone is np.nonzero(c)."""
    return stage("where", (condition, *args), kwargs) if args or kwargs else _nonzero(condition)


def _split(array: Any, indices_or_sections: Any, axis: int = 0, *, strict: bool = True) -> list:
    t = _tensor(array)
    if t.shape is None:
        raise staging_error("np.split of a tensor of unknown rank; reshape it to a known rank first")
    size = t.shape[axis]
    if isinstance(indices_or_sections, int):
        if size is None:
            raise staging_error(
                "np.split into equal sections needs the axis size to be known; pass split points instead"
            )
        n = indices_or_sections
        if strict and size % n:
            raise staging_error(f"np.split: an axis of size {size} does not divide into {n} equal sections")
        cuts = np.cumsum([size // n + (1 if k < size % n else 0) for k in range(n)])[:-1].tolist()
    else:
        cuts = list(indices_or_sections)
    bounds = zip([0, *cuts], [*cuts, None])
    lead = (slice(None),) * (axis % t.ndim)
    return [t[lead + (slice(lo, hi),)] for lo, hi in bounds]


def _per_array(name: str) -> Callable[..., Any]:
    """atleast_1d(a, b) and friends: one op per array, a tuple when given several."""

    def call(*arrays: Any) -> Any:
        staged = tuple(stage(name, (a,), {}) for a in arrays)
        return staged[0] if len(staged) == 1 else staged

    return call


def _result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """NumPy's promotion over the tensors' dtypes (Python scalars stay weak)."""
    return np.result_type(*(_tensor(a).dtype if stages_as_tensor(a) else a for a in arrays_and_dtypes))


def _broadcast_arrays(*arrays: Any) -> tuple:
    return tuple(stage("broadcast_arrays", arrays, {"index": k}) for k in range(len(arrays)))


def _decomposition(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """np.linalg.svd(t) and friends: one op per result, gathered in NumPy's named tuple."""
    count = decompositions.result_count(name, dict(kwargs))
    if count is None:
        return stage(f"linalg_{name}", args, kwargs)
    parts = [stage(f"linalg_{name}", args, {**kwargs, "index": k}) for k in range(count)]
    return decompositions.result_class(name)(*parts)


_SPECIAL: dict[str, Callable[..., Any]] = {
    "atleast_1d": _per_array("atleast_1d"), "atleast_2d": _per_array("atleast_2d"),
    "atleast_3d": _per_array("atleast_3d"), "result_type": _result_type,
    "broadcast_arrays": _broadcast_arrays,
    "shape": _shape, "size": _size, "ndim": _ndim, "asarray": _asarray, "asanyarray": _asarray,
    "array": _asarray, "astype": _astype, "empty_like": _empty_like, "nonzero": _nonzero,
    "where": _where, "split": _split, "array_split": lambda a, s, axis=0: _split(a, s, axis, strict=False),
}
NUMPY_FUNCTIONS: dict[str, Any] = {
    **{name: getattr(np, name) for name in sorted(OP_FUNCTIONS | set(_SPECIAL))},
    **{f"linalg.{name}": getattr(np.linalg, name) for name in (*linalg.LINALG, *decompositions.DECOMPOSITIONS)},
    **{f"fft.{name}": getattr(np.fft, name) for name in spectral.FFT_FUNCTIONS},
}
_BY_FUNCTION = {id(fn): name for name, fn in NUMPY_FUNCTIONS.items()}
SUPPORTED_NUMPY: frozenset[str] = frozenset(NUMPY_FUNCTIONS) | frozenset(elementwise.UFUNCS) | {"abs", "mod"}


def stage_numpy(func: Callable, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """Stage `func(*args, **kwargs)` for a NumPy function `func` that got a Tensor."""
    name = _BY_FUNCTION.get(id(func))
    if name is None:
        shown = getattr(func, "__name__", repr(func))
        module = getattr(func, "__module__", None) or "numpy"
        prefix = "np." + module[len("numpy."):] + "." if module.startswith("numpy.") else "np."
        close = difflib.get_close_matches(shown, sorted(SUPPORTED_NUMPY), n=5, cutoff=0.6)
        hint = f" Close supported functions: {', '.join(close)}." if close else ""
        raise staging_error(
            f"{prefix}{shown} cannot be applied to a staged Tensor: it is not in ag.SUPPORTED_NUMPY.{hint} "
            f"Rewrite it with supported NumPy functions, or wrap it with ag.py_function."
        )
    if kwargs.get("out") is not None:
        raise staging_error(f"np.{name}(..., out=...) cannot be staged: staged tensors are immutable; assign the result.")
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    if name in _SPECIAL:
        return _SPECIAL[name](*args, **kwargs)
    if name.startswith("linalg.") and name[len("linalg."):] in decompositions.DECOMPOSITIONS:
        return _decomposition(name[len("linalg."):], args, kwargs)
    op = name.replace(".", "_")
    return stage(op, args, kwargs)
