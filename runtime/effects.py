"""Effects that happen every time a graph runs: print_, py_function, staged asserts.

Inside a trace each call records an effectful node: the compiler keeps such
nodes, in order, and never folds, deduplicates or removes them. Outside a
trace they act at once, exactly like their Python counterparts.

    ag.print("step", i)        # staged: prints `step 3` at every run
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from runtime.errors import InvalidArgumentError
from runtime.ops.registry import OPS, Op, register
from runtime.origin import Origin, user_origin
from runtime.structure import TreeDef, flatten, is_container, unflatten
from runtime.tensor import Tensor, record
from runtime.trace_context import current_graph
from runtime.types import TensorType

__all__ = ["print_", "py_function", "staged_assert_op", "format_value"]

_UNIT = TensorType(np.dtype(object), ())


def _register(op: Op) -> Op:
    return OPS[op.name] if op.name in OPS else register(op)


def _is_staged(value: Any) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "__autograph_tensor__")


# -- print -------------------------------------------------------------------
def format_value(value: Any) -> str:
    """How ag.print shows a value: strings as is, arrays like NumPy's str (`[1 2 3]`)."""
    if isinstance(value, str):
        return value
    if hasattr(value, "numpy") and callable(value.numpy):
        value = value.numpy()
    return str(value)


_SLOT = object()  # where a run-time value goes back into a shown structure


@dataclasses.dataclass(frozen=True, eq=False)
class _Shown:
    """A structure holding tensors (`[x, y]`, `("bad value", x)`), shown at run time with
    their values, as the unconverted code shows it (str of the structure)."""

    tree: TreeDef
    parts: tuple  # the leaves, _SLOT where a tensor's value goes

    @classmethod
    def of(cls, value: Any) -> tuple[_Shown | None, tuple]:
        """The template and the tensors of `value`, or (None, ()) when it holds none."""
        leaves, tree = flatten(value, is_leaf=_is_staged)
        data = tuple(leaf for leaf in leaves if _is_staged(leaf))
        if not data:
            return None, ()
        return cls(tree, tuple(_SLOT if _is_staged(leaf) else leaf for leaf in leaves)), data

    def fill(self, values: Iterator[Any]) -> Any:
        leaves = [_as_scalar(next(values)) if p is _SLOT else p for p in self.parts]
        return unflatten(self.tree, leaves)


def _as_scalar(value: Any) -> Any:
    """A 0-d array as the NumPy scalar the unconverted code holds (np.float32(1.5))."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def print_values(*values: Any, parts: tuple, sep: str, end: str, file: Any = None, flush: bool = False) -> None:
    """Print the run-time `values` into the slots (None, or shown structures) of `parts`."""
    it = iter(values)
    texts = [
        format_value(next(it)) if part is None
        else format_value(part.fill(it)) if isinstance(part, _Shown) else part
        for part in parts
    ]
    print(*texts, sep=sep, end=end, file=file, flush=flush)


def _print_source(args, attrs) -> str | None:
    """`print('step', i)`: the builtin shows NumPy values exactly as `format_value` does."""
    if any(isinstance(part, _Shown) for part in attrs["parts"]) or attrs.get("file") is not None:
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


_register(Op("print", infer=lambda types, attrs: _UNIT, impl=print_values, emit=_print_source, effectful=True))


def print_(*args: Any, sep: str = " ", end: str = "\n", file: Any = None, flush: bool = False) -> None:
    """Print now outside a trace; inside one, print at every run of the graph.

    `file` and `flush` are print's: None writes to whatever `sys.stdout` is when
    the graph runs (so a later redirect is followed), a file object to that object.
    """
    if current_graph() is None:
        print(*(format_value(a) for a in args), sep=sep, end=end, file=file, flush=flush)
        return
    inputs: tuple = ()
    parts: list = []
    for arg in args:
        shown, data = (None, (arg,)) if _is_staged(arg) else _Shown.of(arg) if is_container(arg) else (None, ())
        inputs += data
        parts.append(shown if shown is not None else None if data else format_value(arg))
    parts = tuple(parts)
    attrs = {"parts": parts, "sep": sep, "end": end}
    if file is not None or flush:  # the common print keeps its short attributes
        attrs.update(file=file, flush=flush)
    record("print", inputs, attrs)


# -- py_function ---------------------------------------------------------------
def call_python(
    *values: Any, func: Callable, Tout: tuple, multiple: bool,  # noqa: N803
    shapes: tuple = (), origin: Origin | None = None,
) -> Any:
    """Run `func` on NumPy values and convert its results to the declared dtypes (and check
    the declared shapes: a trace relied on them)."""
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
        f"{_shape_text(shape)}; the graph was traced for the declared shape. Return that shape, "
        f"or declare None for a dimension that varies."
    )
    if origin is not None and origin.text:
        text += "\n" + origin.excerpt()
    raise InvalidArgumentError(text)


def _shape_text(shape: tuple) -> str:
    return TensorType(np.float64, shape).shape_str()


def _py_infer(types, attrs) -> TensorType | tuple[TensorType, ...]:
    dtypes = attrs["Tout"]
    shapes = attrs.get("shapes") or (None,) * len(dtypes)
    if not dtypes:
        return _UNIT
    if not attrs["multiple"]:
        return TensorType(dtypes[0], shapes[0])
    return tuple(TensorType(d, s) for d, s in zip(dtypes, shapes))


_register(Op("py_function", infer=_py_infer, impl=call_python, effectful=True))


def _result_shapes(shape: Any, count: int, multiple: bool) -> tuple:
    """py_function's `shape=` as one shape (a tuple of ints and Nones, or None) per result."""
    if shape is None:
        return ()
    if not multiple:
        return (_one_shape(shape),)
    if not isinstance(shape, (list, tuple)) or len(shape) != count or not all(
        s is None or isinstance(s, (list, tuple)) for s in shape
    ):
        raise TypeError(
            f"py_function's shape= must give one shape per result when Tout is a list: a list of "
            f"{count} shapes (each a tuple such as (3,) or (), or None when unknown), not {shape!r}"
        )
    return tuple(_one_shape(s) for s in shape)


def _one_shape(shape: Any) -> tuple[int | None, ...] | None:
    if shape is None:
        return None
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if not isinstance(dims, (list, tuple)) or not all(
        d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0) for d in dims
    ):
        raise TypeError(
            f"py_function's shape= must be a tuple of sizes and Nones, such as (3,), (None, 2) or () "
            f"for a scalar, or None when even the rank is unknown; got {shape!r}"
        )
    return tuple(None if d is None else int(d) for d in dims)


def py_function(func: Callable, inp: Sequence[Any], Tout: Any, shape: Any = None) -> Any:  # noqa: N803
    """Run `func` on NumPy values at every execution; results have the dtypes in `Tout`.

    A staged result's shape is unknown (even its rank) unless `shape=` declares
    it: `()` for a scalar, `(None, 3)`, or a list of shapes when `Tout` is a
    list. A loop that accumulates the result needs it, as its rank must not
    change. Each run checks the result against the declared shape.
    """
    multiple = isinstance(Tout, (list, tuple))
    dtypes = tuple(np.dtype(d) for d in Tout) if multiple else (() if Tout is None else (np.dtype(Tout),))
    shapes = _result_shapes(shape, len(dtypes), multiple) if dtypes else ()
    if current_graph() is None:
        values = [v.numpy() if hasattr(v, "numpy") else v for v in inp]
        result = call_python(
            *values, func=func, Tout=dtypes, multiple=multiple, shapes=shapes, origin=user_origin(2) if shapes else None
        )
        return list(result) if multiple else result
    attrs = {"func": func, "Tout": dtypes, "multiple": multiple}
    if shapes:
        attrs.update(shapes=shapes, origin=user_origin(2))
    hint = getattr(func, "__name__", "")
    out = record("py_function", tuple(inp), attrs, name=hint if hint.isidentifier() else "py_function")
    if not multiple:
        return out if dtypes else None
    return [record("getitem", (out,), {"index": i}) for i in range(len(dtypes))]


# -- assert ------------------------------------------------------------------
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


_register(Op("assert", infer=lambda types, attrs: _UNIT, impl=_check_statement, effectful=True))


def _message_parts(message: Any) -> tuple[tuple, dict]:
    """The assert op's data inputs and attrs for a message (`assert x > 0, ("bad", x)`)."""
    if message is None or isinstance(message, str):
        return (), {"message": message or ""}
    shown, data = _Shown.of(message)
    if shown is None:
        return (), {"message": str(message)}
    return data, {"message": "", "shown": shown}


def staged_assert_op(cond_tensor: Any, message: Any, origin: Origin | None) -> None:
    """An `assert` on a tensor: checked at every run of the graph (at once outside a trace).
    `message` is a string, or the message object itself when it holds tensors."""
    if current_graph() is None or not _is_staged(cond_tensor):
        check_assertion(cond_tensor, message=message if isinstance(message, str) else str(message), origin=origin)
        return
    origin = origin if origin is not None else user_origin(2)
    data, attrs = _message_parts(message)
    record("assert", (cond_tensor, *data), {**attrs, "origin": origin})
