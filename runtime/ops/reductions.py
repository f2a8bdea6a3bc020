"""Reductions and scans: sum, mean, max, argmax, std, any, cumsum, ...

Arguments bind by the NumPy function's own signature, so `np.sum(t, 0)` and
`np.sum(t, axis=0)` mean the same. The dtype comes from running the function
on a 1-element array of the input's rank (mean of int is float64, sum of
int32 is int64, argmax is intp); the shape drops (or keeps, with keepdims)
the reduced axes, unknown dims and all.

Those that are also ndarray methods taking the same arguments in the same
order print as methods: `x.sum(axis=0)` runs the same NumPy code as
`np.sum(x, axis=0)` without the function's Python wrapper, which costs more
than the sum itself on small arrays (3 µs against 2 in a loop test like
`while np.sum(x) > 1`). NumPy scalars have the same methods.

`sum` and `prod` go one step further and print as the ufunc reduction the
method runs, `np.add.reduce(x, None)`: ndarray.sum is a Python function
(numpy/_core/_methods.py) that passes its arguments, in the same order, to
`np.add.reduce`, so the result is the same object bit for bit (dtype, small
integer upcast, NumPy scalar for a full reduction) and the call is about
0.1 µs cheaper, a tenth of a small sum. Only the default axis differs (0
for the ufunc, all axes for the method), so a missing axis is printed as None.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.arguments import bind_arguments, require_concrete
from runtime.ops.calls import Slot, render, render_call
from runtime.ops.define import define
from runtime.ops.probing import probe, probe_type
from runtime.ops.shapes import known_product, normalize_axes, reduced

__all__ = [
    "REDUCTIONS", "SCANS", "METHODS", "UFUNC_REDUCTIONS", "reduction_rule", "scan_rule", "method_call",
    "ufunc_reduce_call",
]

REDUCTIONS = (
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "any", "all",
    "std", "var", "median", "ptp", "count_nonzero", "nansum", "nanmean", "nanmax", "nanmin",
    "nanprod", "nanstd", "nanvar", "nanargmax", "nanargmin", "nanmedian", "average",
)
SCANS = ("cumsum", "cumprod", "nancumsum", "nancumprod")
# np.<name>(a, *rest) is a.<name>(*rest) for arrays and NumPy scalars alike
METHODS = frozenset({
    "sum", "mean", "prod", "max", "min", "argmax", "argmin", "std", "var", "cumsum", "cumprod",
})
# np.<name>(a, axis, dtype, out, keepdims, initial, where) is <ufunc>.reduce with those
# arguments in that order, except that the ufunc's axis defaults to 0
UFUNC_REDUCTIONS = {"sum": "np.add.reduce", "prod": "np.multiply.reduce"}
_NAME = re.compile(r"^[A-Za-z_]\w*$")


def _bind(fn: Callable, args: tuple, kwargs: dict) -> dict[str, Any]:
    return bind_arguments(fn, args, kwargs)


def reduction_rule(fn: Callable) -> Callable[..., TensorType]:
    """Shape: `reduced(a.shape, axis, keepdims)`; dtype: what NumPy gives."""

    def rule(*args: Any, **kwargs: Any) -> TensorType:
        bound = _bind(fn, args, kwargs)
        require_concrete(fn, args, kwargs)
        a = next(iter(bound.values()))
        if not isinstance(a, TensorType) or any(k in bound for k in ("weights", "returned")):
            return probe_type(fn, args, kwargs)
        value = probe(fn, args, kwargs, small=True)
        axis = bound.get("axis")
        return TensorType(np.asarray(value).dtype, reduced(a.shape, axis, bool(bound.get("keepdims", False))))

    return rule


def scan_rule(fn: Callable) -> Callable[..., TensorType]:
    """Cumulative ops keep the shape along an axis; without one they flatten."""

    def rule(*args: Any, **kwargs: Any) -> TensorType:
        bound = _bind(fn, args, kwargs)
        a = next(iter(bound.values()))
        value = probe(fn, args, kwargs, small=True)
        if bound.get("axis") is not None:
            if a.shape == ():
                return TensorType(value.dtype, np.shape(value))  # a 0-d scan is 1-long, as in NumPy
            if a.shape is not None:
                normalize_axes(bound["axis"], len(a.shape))
            return TensorType(value.dtype, a.shape)
        size = None if a.shape is None else known_product(a.shape)
        return TensorType(value.dtype, (size,))

    return rule


def method_call(name: str) -> Callable[[Sequence[str], Mapping[str, Any]], str]:
    """Emit `x.name(...)` when the array argument is an input, else `np.name(...)`."""

    def emit(sources: Sequence[str], attrs: Mapping[str, Any]) -> str:
        template = attrs.get("args")
        if template is not None and not (template and type(template[0]) is Slot):
            return render_call(f"np.{name}", sources, attrs)
        args = list(sources) if template is None else [render(v, sources) for v in template]
        args += [f"{key}={render(value, sources)}" for key, value in attrs.items() if key != "args"]
        receiver = args[0] if _NAME.match(args[0]) else f"({args[0]})"
        return f"{receiver}.{name}({', '.join(args[1:])})"

    return emit


def ufunc_reduce_call(name: str) -> Callable[[Sequence[str], Mapping[str, Any]], str]:
    """Emit `np.add.reduce(x, None, ...)` for `np.sum(x, ...)` when the array argument is an input."""
    method = method_call(name)
    function = UFUNC_REDUCTIONS[name]

    def emit(sources: Sequence[str], attrs: Mapping[str, Any]) -> str:
        template = attrs.get("args")
        if "a" in attrs or (template is not None and not (template and type(template[0]) is Slot)):
            return method(sources, attrs)
        args = list(sources) if template is None else [render(v, sources) for v in template]
        if len(args) == 1 and "axis" not in attrs:
            args.append("None")
        args += [f"{key}={render(value, sources)}" for key, value in attrs.items() if key != "args"]
        return f"{function}({', '.join(args)})"

    return emit


def _emitter(name: str) -> Callable[[Sequence[str], Mapping[str, Any]], str] | None:
    if name in UFUNC_REDUCTIONS:
        return ufunc_reduce_call(name)
    return method_call(name) if name in METHODS else None


for _name in REDUCTIONS:
    define(_name, getattr(np, _name), reduction_rule(getattr(np, _name)), emit=_emitter(_name))
for _name in SCANS:
    define(_name, getattr(np, _name), scan_rule(getattr(np, _name)),
           emit=method_call(_name) if _name in METHODS else None)
