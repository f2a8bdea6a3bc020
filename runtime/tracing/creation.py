"""Array creation that NumPy never dispatches to a Tensor: asarray, array, zeros, full, eye, ...

`np.asarray(t)` or `np.zeros((n, 3))` with a staged `n` reach no
`__array_function__` (they are C functions without a dispatcher), so
converted code calls the replacements in `CALL_OVERRIDES` instead (through
`runtime.operators.builtins.OVERRIDES`). Each calls NumPy unchanged unless an
argument is staged:

    np.asarray(t, np.float32)   -> cast (a Tensor stays itself without dtype)
    np.asarray([t, u])          -> stack
    np.zeros((n, 3))            -> "zeros" with shape (None, 3)
    np.arange(n)                -> "staged_range" of length None
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ops.calls import unknown_dimension
from runtime.tracing.record import record, stage
from runtime.tracing.staged import stages_as_tensor
from runtime.tracing.trace_context import is_tracing

__all__ = ["CALL_OVERRIDES", "asarray", "any_staged", "arange"]


def any_staged(value: Any) -> bool:
    """Whether `value` or any leaf of nested lists/tuples is staged."""
    if isinstance(value, (list, tuple)):
        return any(any_staged(v) for v in value)
    return stages_as_tensor(value)


def asarray(a: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
    """A Tensor stays a Tensor (cast if `dtype` differs); a list holding Tensors is stacked."""
    if hasattr(a, "__autograph_tensor__"):
        a = a.__autograph_tensor__()
    if isinstance(a, (list, tuple)):
        a = stage("stack", ([asarray(v) if isinstance(v, (list, tuple)) else v for v in a],), {})
    if dtype is None or np.dtype(dtype) == a.dtype:
        return a
    return stage("cast", (a,), {"dtype": np.dtype(dtype)})


def _override(function: Callable, staged: Callable) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            if any_staged(args) or any_staged(tuple(kwargs.values())):
                return staged(*args, **kwargs)
            return function(*args, **kwargs)
        except TypeError:
            shape = args[0] if args else kwargs.get("shape")
            if function in _SHAPED and is_tracing() and _holds_none(shape):
                raise unknown_dimension(f"np.{function.__name__}({shape!r}, ...)") from None
            raise

    call.__name__ = function.__name__
    call.__doc__ = f"np.{function.__name__}, staged when an argument is a Tensor."
    return call


_SHAPED = (np.zeros, np.empty, np.ones, np.full)


def _holds_none(shape: Any) -> bool:
    return shape is None or (isinstance(shape, (tuple, list)) and any(d is None for d in shape))


def arange(start: Any, limit: Any, delta: Any, dtype: Any) -> Any:
    """start, start + delta, ... below limit, as one staged 1-d value of unknown length."""
    return record("staged_range", (start, limit, delta), {"dtype": np.dtype(dtype)})


def _staged_arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """np.arange with a staged bound: one staged range of unknown length, NumPy's dtype
    (found by np.arange on zeros of the bounds' dtypes: ints give int64, floats float64)."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if any(v is None for v in (start, stop, step)):
        raise unknown_dimension("np.arange(...)")
    samples = [v.dtype.type(i) if stages_as_tensor(v) else v for v, i in ((start, 0), (stop, 0), (step, 1))]
    result = np.arange(*samples, dtype=dtype).dtype
    return arange(start, stop, step, result)


def _keep_dtype(a: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
    return asarray(a, dtype)


def _creation(name: str) -> Callable:
    return lambda *args, **kwargs: stage(name, args, kwargs)


CALL_OVERRIDES: dict[Callable, Callable] = {
    np.asarray: _override(np.asarray, _keep_dtype),
    np.asanyarray: _override(np.asanyarray, _keep_dtype),
    np.array: _override(np.array, _keep_dtype),
    np.zeros: _override(np.zeros, _creation("zeros")),
    np.empty: _override(np.empty, _creation("zeros")),  # staged values are deterministic: zeros
    np.ones: _override(np.ones, _creation("ones")),
    np.full: _override(np.full, _creation("full")),
    np.eye: _override(np.eye, _creation("eye")),
    np.arange: _override(np.arange, _staged_arange),
    np.identity: _override(np.identity, _creation("eye")),
}
