"""Effect ops: print, py_function and assert, which run at every execution and keep their order.

They are `effectful`: never folded, merged or removed. A message or printed
structure that holds tensors is a `Shown` template whose slots the run-time
values fill, so it reads as the unconverted code's `str` of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from runtime.ir.errors import InvalidArgumentError
from runtime.ir.origin import Origin
from runtime.ir.structure import TreeDef, unflatten
from runtime.ir.types import TensorType
from runtime.ops.registry import Op, register
from runtime.ops.state import UNIT, _unit

__all__ = ["Shown", "SLOT", "format_value", "print_values", "call_python", "check_assertion"]


def format_value(value: Any) -> str:
    """How ag.print shows a value: strings as is, arrays like NumPy's str (`[1 2 3]`)."""
    if isinstance(value, str):
        return value
    if hasattr(value, "numpy") and callable(value.numpy):
        value = value.numpy()
    return str(value)


SLOT = object()  # where a run-time value goes back into a shown structure


@dataclasses.dataclass(frozen=True, eq=False)
class Shown:
    """A structure holding tensors (`[x, y]`, `("bad value", x)`), shown at run time with
    their values, as the unconverted code shows it (str of the structure)."""

    tree: TreeDef
    parts: tuple  # the leaves, SLOT where a tensor's value goes

    def fill(self, values: Iterator[Any]) -> Any:
        leaves = [_as_scalar(next(values)) if p is SLOT else p for p in self.parts]
        return unflatten(self.tree, leaves)


def _as_scalar(value: Any) -> Any:
    """A 0-d array as the NumPy scalar the unconverted code holds (np.float32(1.5))."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def print_values(*values: Any, parts: tuple, sep: str, end: str, file: Any = None, flush: bool = False) -> None:
    """Print the run-time `values` into the slots (None, or shown structures) of `parts`."""
    it = iter(values)
    texts = [
        format_value(next(it)) if part is None
        else format_value(part.fill(it)) if isinstance(part, Shown) else part
        for part in parts
    ]
    print(*texts, sep=sep, end=end, file=file, flush=flush)


def _print_source(args, attrs) -> str | None:
    """`print('step', i)`: the builtin shows NumPy values exactly as `format_value` does."""
    if any(isinstance(part, Shown) for part in attrs["parts"]) or attrs.get("file") is not None:
        return None  # print_values rebuilds the structures, or writes to the file object it holds
    it = iter(args)
    items = [repr(part) if part is not None else next(it) for part in attrs["parts"]]
    if attrs["sep"] != " ":
        items.append(f"sep={attrs['sep']!r}")
    if attrs["end"] != "\n":
        items.append(f"end={attrs['end']!r}")
    if attrs.get("flush"):
        items.append("flush=True")
    return f"print({', '.join(items)})"


PRINT = register(Op("print", infer=_unit, impl=print_values, emit=_print_source, effectful=True))


def call_python(
    *values: Any, func: Callable, Tout: tuple, multiple: bool,  # noqa: N803
    shapes: tuple = (), origin: Origin | None = None, grad: Callable | None = None,
) -> Any:
    """Run `func` on NumPy values and convert its results to the declared dtypes (and check
    the declared shapes: a trace relied on them). `grad`, the user's gradient function, is for
    the gradient transform (runtime.passes.gradient.rules_python), not for running."""
    result = func(*values)
    if not Tout:
        return None
    if not multiple:
        return _declared(np.asarray(result, dtype=Tout[0]), shapes, 0, origin)
    if not isinstance(result, (list, tuple)) or len(result) != len(Tout):
        raise InvalidArgumentError(
            f"the function given to py_function returned {result!r}, but Tout declares "
            f"{len(Tout)} results; return a list of that many values."
        )
    return tuple(_declared(np.asarray(r, dtype=d), shapes, i, origin) for i, (r, d) in enumerate(zip(result, Tout)))


def _declared(value: np.ndarray, shapes: tuple, index: int, origin: Origin | None) -> np.ndarray:
    """`value`, if it has the shape declared for result `index` (py_function's `shape=`)."""
    shape = shapes[index] if shapes else None
    if shape is None or TensorType(value.dtype, shape).is_compatible_with(value.dtype, value.shape):
        return value
    which = f"result {index} of " if len(shapes) > 1 else ""
    where = f" at {origin}" if origin is not None else ""
    text = (
        f"{which}the py_function{where} has shape {value.shape}, but its shape= declares "
        f"{TensorType(np.float64, shape).shape_str()}; the graph was traced for the declared shape. "
        f"Return that shape, or declare None for a dimension that varies."
    )
    if origin is not None and origin.text:
        text += "\n" + origin.excerpt()
    raise InvalidArgumentError(text)


def _py_infer(types, attrs) -> TensorType | tuple[TensorType, ...]:
    dtypes = attrs["Tout"]
    shapes = attrs.get("shapes") or (None,) * len(dtypes)
    if not dtypes:
        return UNIT
    if not attrs["multiple"]:
        return TensorType(dtypes[0], shapes[0])
    return tuple(TensorType(d, s) for d, s in zip(dtypes, shapes))


PY_FUNCTION = register(Op("py_function", infer=_py_infer, impl=call_python, effectful=True))


def check_assertion(value: Any, *data: Any, message: str, origin: Origin | None, shown: Any = None) -> None:
    """Raise InvalidArgumentError with the user's message and line unless `value` is all true.

    `shown` is a message that held tensors: their run-time values (`data`) go back into
    it and it reads as Python's `str` of it, as the unconverted assert shows.
    """
    if np.all(value):
        return
    if shown is not None:
        message = str(shown.fill(iter(data)))
    where = f" at {origin}" if origin is not None else ""
    text = f"assertion failed{where}: {message}" if message else f"assertion failed{where}"
    if origin is not None and origin.text:
        text += "\n" + origin.excerpt()
    raise InvalidArgumentError(text)


def _check_statement(value: Any, *data: Any, **attrs: Any) -> None:
    """The graph's assert tests one truth value, as Python's `assert` does: a condition with
    more or fewer than one element raises NumPy's ValueError, not a check of every element."""
    bool(np.asarray(value))
    check_assertion(value, *data, **attrs)


ASSERT = register(Op("assert", infer=_unit, impl=_check_statement, effectful=True))


