"""Where NumPy hands a staged Tensor back to us: ufuncs and array functions.

`Tensor.__array_ufunc__` and `Tensor.__array_function__` call these, and so do
the Tensor's Python operators (`a + 1` stages `np.add(a, 1)`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ops.calls import staging_error
from runtime.ops.define import stage
from runtime.ops.elementwise import UFUNCS, has_methods, ufunc_op_name

__all__ = ["stage_ufunc", "stage_function", "stage_method"]

_UFUNC_METHODS = ("__call__", "reduce", "accumulate", "outer")


def stage_ufunc(ufunc: np.ufunc, method: str, inputs: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """Record `ufunc.method(*inputs, **kwargs)`; a tuple of tensors for multi-output ufuncs."""
    name = ufunc.__name__
    if UFUNCS.get(name) is not ufunc:
        raise staging_error(
            f"the ufunc {name!r} is not a NumPy ufunc and cannot be staged; "
            f"wrap it with ag.py_function, or write it with NumPy functions."
        )
    if kwargs.get("out") is not None:
        raise staging_error(
            f"np.{name}(..., out=...) cannot be staged: staged tensors are immutable. "
            f"Assign the result instead: `y = np.{name}(...)`."
        )
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    if method not in _UFUNC_METHODS or (method != "__call__" and not has_methods(ufunc)):
        raise staging_error(
            f"np.{name}.{method} cannot be staged; supported: np.{name}(...)"
            + (", .reduce, .accumulate, .outer" if has_methods(ufunc) else "")
        )
    if method == "__call__" and ufunc.nout > 1:
        return tuple(stage(ufunc_op_name(ufunc, output=k), inputs, kwargs) for k in range(ufunc.nout))
    return stage(ufunc_op_name(ufunc, method), inputs, kwargs)


def stage_function(func: Callable, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """Stage a NumPy function through the table in `runtime.ops.numpy_api`."""
    from runtime.ops.numpy_api import stage_numpy

    return stage_numpy(func, args, kwargs)


def stage_method(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """A Tensor method that mirrors `np.<name>` (t.sum(axis=0) is np.sum(t, axis=0))."""
    from runtime.ops.numpy_api import stage_numpy

    function = getattr(np, name)
    if isinstance(function, np.ufunc):
        return stage_ufunc(function, "__call__", args, kwargs)
    return stage_numpy(function, args, kwargs)
