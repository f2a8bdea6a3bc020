"""The "setitem" op: `x[key] = value` as a functional update (a new array; `x` is unchanged).

Item assignment on an array the function created is staged as this op, and
the converter rebinds the name to its result (runtime.operators.item_assignment).
The key is a template, as for "index"; the value is cast to `x`'s dtype
(NumPy's assignment casts unsafely too: an int array stores `1.7` as 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.calls import resolve_call, staging_error
from runtime.ops.indexing import index_shape
from runtime.ops.registry import Op, register
from runtime.ops.rule_memo import remembered

__all__ = ["SETITEM", "set_item"]


def set_item(x: Any, key: Any, value: Any) -> np.ndarray:
    """A copy of `x` with `value` assigned at `key`."""
    result = np.array(x, copy=True)
    result[key] = value
    return result


def _infer(types: Sequence[TensorType], attrs: Mapping[str, Any]) -> TensorType:
    (x, key, value), _ = resolve_call(types, attrs)
    try:
        index_shape(x.shape, key)
    except (IndexError, TypeError, ValueError) as exc:
        raise staging_error(f"item assignment: {exc}") from exc
    return TensorType(x.dtype, x.shape)


def _impl(*values: Any, **attrs: Any) -> np.ndarray:
    args, _ = resolve_call(values, attrs)
    return set_item(*args)


SETITEM = register(Op("setitem", infer=remembered(_infer), impl=_impl, numpy=set_item, path="setitem"))
