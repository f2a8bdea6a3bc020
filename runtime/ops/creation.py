"""Array creation ops with sizes known only when the graph runs: zeros, ones, full, eye, staged_range.

NumPy never dispatches `np.zeros((n, 3))` to a Tensor `n` (a C function
without a dispatcher); converted code calls `runtime.tracing.creation`'s
replacements, which record these ops. A staged size is an unknown (None)
dimension of the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.calls import staging_error
from runtime.ops.define import define
from runtime.ops.probing import probe
from runtime.ops.registry import Op, register

__all__ = ["STAGED_RANGE"]


def _dims(shape: Any) -> tuple[int | None, ...] | None:
    if isinstance(shape, TensorType):
        if shape.shape is None or len(shape.shape) > 1:
            return None if shape.shape is None else (None,)
        if not shape.shape:
            return (None,)
        return None if shape.shape[0] is None else (None,) * shape.shape[0]
    dims = shape if isinstance(shape, tuple) else (shape,)
    out = tuple(None if isinstance(d, TensorType) else int(d) for d in dims)
    if any(d is not None and d < 0 for d in out):
        raise staging_error(f"negative dimensions are not allowed: {out}")
    return out


def _filled_rule(fn: Callable) -> Callable[..., TensorType]:
    """zeros/ones/empty/full: the shape argument's dims (staged ones unknown), NumPy's dtype."""

    def rule(shape: Any, *args: Any, **kwargs: Any) -> TensorType:
        dims = _dims(shape)
        value = probe(fn, ((1,) * (len(dims) if dims is not None else 1), *args), kwargs, small=True)
        return TensorType(np.asarray(value).dtype, dims)

    return rule


def _eye_rule(n: Any, m: Any = None, k: Any = 0, dtype: Any = float, **kwargs: Any) -> TensorType:
    rows = None if isinstance(n, TensorType) else int(n)
    cols = rows if m is None else (None if isinstance(m, TensorType) else int(m))
    return TensorType(np.dtype(dtype), (rows, cols))


for _name in ("zeros", "ones", "full"):
    define(_name, getattr(np, _name), _filled_rule(getattr(np, _name)))
define("eye", np.eye, _eye_rule)


def _range_infer(types: Sequence[TensorType], attrs: Mapping[str, Any]) -> TensorType:
    return TensorType(attrs["dtype"], (None,))


def _range(start: Any, limit: Any, delta: Any, *, dtype: np.dtype) -> np.ndarray:
    return np.arange(start, limit, delta).astype(dtype)


# np.arange of run-time bounds: the length is unknown
STAGED_RANGE = register(Op("staged_range", infer=_range_infer, impl=_range))
