"""Op declarations for the NumPy functions beyond ufuncs, reductions, shapes and linalg.

Each NumPy function in `OP_FUNCTIONS` stages as the op of the same name;
`runtime.tracing.numpy_functions` holds the table of every function that
stages (`SUPPORTED_NUMPY`) and the few that stage as something else (np.shape
of a known shape is a tuple of ints, np.split a list of slices, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops import reductions, shape_ops
from runtime.ops.arguments import require_concrete
from runtime.ops.calls import staging_error
from runtime.ops.define import define
from runtime.ops.probing import probe, probe_type
from runtime.ops.shapes import broadcast, shape_of

__all__ = ["OP_FUNCTIONS"]

_PROBED = (
    "kron", "cross", "trace", "diag", "diagonal",
    "triu", "tril", "tile", "diff", "ediff1d", "searchsorted", "interp", "percentile", "quantile",
    "take", "take_along_axis", "moveaxis", "rot90", "atleast_1d", "atleast_2d", "atleast_3d",
    "column_stack", "dstack", "append", "pad", "isin", "array_equal", "array_equiv", "allclose",
    "linspace", "around", "round", "real", "imag", "sinc", "cov", "corrcoef", "convolve",
    "matrix_transpose", "trapezoid", "cumulative_sum", "cumulative_prod", "partition", "argpartition",
    "logspace", "geomspace", "nanpercentile", "nanquantile", "vander", "polyval", "angle", "i0",
    "isreal", "iscomplex", "resize", "digitize", "histogram_bin_edges", "unwrap",
)
def _probe_rule(fn: Callable) -> Callable[..., TensorType]:
    def rule(*args: Any, **kwargs: Any) -> TensorType:
        require_concrete(fn, args, kwargs)
        return probe_type(fn, args, kwargs)

    return rule


for _name in _PROBED:
    define(_name, getattr(np, _name), _probe_rule(getattr(np, _name)))


def _repeat_rule(a: TensorType, repeats: Any, axis: Any = None) -> TensorType:
    if not isinstance(repeats, TensorType):
        return probe_type(np.repeat, (a, repeats, axis), {})
    if axis is None or a.shape is None:
        return TensorType(a.dtype, (None,))
    dims = list(a.shape)
    dims[axis] = None
    return TensorType(a.dtype, tuple(dims))


def _unknown_length(fn: Callable, shape_of_input: Callable[[TensorType], tuple]) -> Callable:
    """Data-dependent results (nonzero, bincount): NumPy's dtype, a shape of unknown length."""

    def rule(a: TensorType, *args: Any, **kwargs: Any) -> TensorType:
        value = probe(fn, (a, *args), kwargs, small=True)
        return TensorType(np.asarray(value).dtype, shape_of_input(a))

    return rule


def _nonzero_at(a: Any, index: int) -> Any:
    return np.nonzero(a)[index]


define("repeat", np.repeat, _repeat_rule)
define("argwhere", np.argwhere, _unknown_length(np.argwhere, lambda a: (None, a.rank)))
define("flatnonzero", np.flatnonzero, _unknown_length(np.flatnonzero, lambda a: (None,)))
define("unique_values", np.unique_values, _unknown_length(np.unique_values, lambda a: (None,)))
define("bincount", np.bincount, _unknown_length(np.bincount, lambda a: (None,)))
define("nonzero", _nonzero_at, _unknown_length(_nonzero_at, lambda a: (None,)),
       emit=lambda s, attrs: f"np.nonzero({s[0]})[{attrs['index']!r}]")


def _unique_rule(a: TensorType, *args: Any, **kwargs: Any) -> TensorType:
    if any(args) or any(kwargs.get(k) for k in ("return_index", "return_inverse", "return_counts", "axis")):
        raise staging_error(
            "np.unique stages only in its plain form np.unique(t) (a flat, sorted tensor of unknown "
            "length); use ag.py_function for the return_* and axis= forms"
        )
    return TensorType(a.dtype, (None,))


define("unique", np.unique, _unique_rule)
define(
    "shape", lambda a: np.asarray(np.shape(a), np.int64), lambda a: TensorType(np.int64, (a.rank,)),
    emit=lambda s, attrs: f"np.asarray(np.shape({s[0]}), np.int64)",
)
define("size", lambda a: np.int64(np.size(a)), lambda a: TensorType(np.int64, ()), emit=lambda s, attrs: f"np.int64(np.size({s[0]}))")
define("ndim", lambda a: np.int64(np.ndim(a)), lambda a: TensorType(np.int64, ()), emit=lambda s, attrs: f"np.int64(np.ndim({s[0]}))")


def _broadcast_arrays_rule(*arrays: Any, index: int) -> TensorType:
    dtype = arrays[index].dtype if isinstance(arrays[index], TensorType) else np.asarray(arrays[index]).dtype
    return TensorType(dtype, broadcast(*(shape_of(a) for a in arrays)))


def _broadcast_arrays_fmt(args: list[str], keywords: dict[str, str]) -> str:
    return f"np.broadcast_arrays({', '.join(args)})[{keywords['index']}]"


define(
    "broadcast_arrays", lambda *arrays, index: np.broadcast_arrays(*arrays)[index], _broadcast_arrays_rule,
    fmt=_broadcast_arrays_fmt,
)


OP_FUNCTIONS: frozenset[str] = frozenset({
    name for name in (
        *reductions.REDUCTIONS, *reductions.SCANS, *shape_ops.RULES, *_PROBED, "dot", "inner", "outer", "einsum", "tensordot", "where", "clip",
        "isclose", "nan_to_num", "real_if_close", "zeros_like", "ones_like", "full_like", "sort",
        "argsort", "repeat", "argwhere", "flatnonzero", "unique", "unique_values", "bincount",
    )
})
