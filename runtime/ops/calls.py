"""A NumPy call as an op records it: tensor inputs plus a literal template.

`np.clip(t, 0, 1.5)` is staged as one node whose inputs are the tensors and
whose `attrs` keep everything else as printable, hashable literals:

    inputs = (t,)      attrs = {"args": (Slot(0), Weak(0), Weak(1.5))}

`Slot(i)` stands for input i; `Weak(v)` keeps a Python scalar a Python scalar,
(lists become tuples: NumPy reads both the same way as arguments),
so NumPy 2's promotion rules (NEP 50: `int32 tensor + 1` stays int32) hold in
`infer`, `impl` and the emitted code alike. Keyword arguments are the other
attrs. Without an "args" attr the positional arguments are the inputs in order,
so `record("add", (a, b))` works too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.origin import user_origin

__all__ = [
    "Slot", "Weak", "Span", "resolve_call", "render", "render_call", "staging_error", "unknown_dimension",
    "is_dtype_like", "PY_SCALARS", "PY_SCALAR_TYPES",
]

PY_SCALARS = (bool, int, float, complex)
PY_SCALAR_TYPES = frozenset(PY_SCALARS)  # exactly these types (subclasses take the long way)


@dataclass(frozen=True, slots=True)
class Slot:
    """Placeholder for the op's input number `index`."""

    index: int

    def __repr__(self) -> str:
        return f"Slot({self.index})"


@dataclass(frozen=True, slots=True)
class Span:
    """A slice in a template (hashable, unlike `slice` before Python 3.12)."""

    start: Any
    stop: Any
    step: Any


class Weak:
    """A Python scalar argument; equal only to a Weak of the same type and value."""

    __slots__ = ("value",)

    def __init__(self, value: bool | int | float | complex) -> None:
        self.value = value

    def _key(self) -> tuple:
        value = self.value
        if isinstance(value, float) and math.isnan(value):
            return (float, "nan")
        return (type(value), value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Weak) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return _literal(self.value)


def staging_error(message: str) -> StagingError:
    """A StagingError that names the user's file:line when one is on the stack."""
    origin = user_origin(2)
    if origin is None:
        return StagingError(message)
    excerpt = f"\n{origin.excerpt()}" if origin.text else ""
    return StagingError(f"{origin}: {message}{excerpt}")


def unknown_dimension(call: str) -> StagingError:
    """The error for a None size while tracing: most often `x.shape[i]` of an unknown dimension."""
    return staging_error(
        f"{call} gets None where a size is expected. A dimension that the input signature (or "
        f"reduce_retracing) leaves unknown is None in x.shape while tracing; use len(x) or "
        f"np.shape(x)[i], which give the size as a Tensor."
    )


def is_dtype_like(value: type) -> bool:
    try:
        np.dtype(value)
    except TypeError:
        return False
    return True


def resolve_call(
    values: Sequence[Any], attrs: Mapping[str, Any], convert: Callable[[Any], Any] = lambda w: w
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """(args, kwargs) with Slots replaced by `values` and Weaks by their Python value."""
    template = attrs.get("args")
    args = tuple(values) if template is None else _fill(template, values, convert)
    kwargs = {key: _fill(value, values, convert) for key, value in attrs.items() if key != "args"}
    return args, kwargs


def _fill(item: Any, values: Sequence[Any], convert: Callable[[Any], Any]) -> Any:
    """One template item with its Slots and Weaks resolved.

    A module function rather than a closure: a recursive closure holds itself
    through its cell, so each call would leave a reference cycle for the
    garbage collector.
    """
    if isinstance(item, Slot):
        return values[item.index]
    if isinstance(item, Weak):
        return convert(item.value)
    if isinstance(item, tuple):
        return tuple([_fill(v, values, convert) for v in item])
    if isinstance(item, Span):
        return slice(_fill(item.start, values, convert), _fill(item.stop, values, convert),
                     _fill(item.step, values, convert))
    return item


def render(item: Any, sources: Sequence[str]) -> str:
    """Python source for one template item (sources name the inputs)."""
    if isinstance(item, Slot):
        return sources[item.index]
    if isinstance(item, Weak):
        return _literal(item.value)
    if isinstance(item, tuple):
        inner = ", ".join(render(v, sources) for v in item)
        return f"({inner},)" if len(item) == 1 else f"({inner})"
    if isinstance(item, Span):
        parts = ", ".join(render(v, sources) for v in (item.start, item.stop, item.step))
        return f"slice({parts})"
    if isinstance(item, type) and is_dtype_like(item):
        item = np.dtype(item)
    if isinstance(item, np.dtype):
        return f"np.dtype({item.str if item.names else item.name!r})"
    if item is Ellipsis:
        return "..."
    if isinstance(item, np.generic):
        return f"np.{type(item).__name__}({_literal(item.item())})"
    if isinstance(item, (bool, int, float, complex)):
        return _literal(item)
    return repr(item)


def render_call(function: str, sources: Sequence[str], attrs: Mapping[str, Any]) -> str:
    """`np.name(a, 1.5, axis=0)` for a call recorded by `runtime.tracing.record.split_call`."""
    template = attrs.get("args")
    args = list(sources) if template is None else [render(v, sources) for v in template]
    args += [f"{key}={render(value, sources)}" for key, value in attrs.items() if key != "args"]
    return f"{function}({', '.join(args)})"


def _literal(value: bool | int | float | complex) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, complex):
        return f"complex({_literal(value.real)}, {_literal(value.imag)})"
    return repr(value)
