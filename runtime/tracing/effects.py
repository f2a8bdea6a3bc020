"""Effects that happen every time a graph runs: print_, py_function, staged asserts.

Inside a trace each call records an effectful node: the compiler keeps such
nodes, in order, and never folds, deduplicates or removes them. Outside a
trace they act at once, exactly like their Python counterparts.

    ag.print("step", i)        # staged: prints `step 3` at every run
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.ir.origin import Origin, user_origin
from runtime.ir.structure import flatten, is_container
from runtime.ops.effects import SLOT, Shown, call_python, check_assertion, format_value
from runtime.tracing.record import record
from runtime.tracing.staged import stages_as_tensor
from runtime.tracing.trace_context import current_graph

__all__ = ["print_", "py_function", "staged_assert_op", "format_value"]



# -- print -------------------------------------------------------------------
def shown_of(value: Any) -> tuple[Shown | None, tuple]:
    """The template and the tensors of `value`, or (None, ()) when it holds none."""
    leaves, tree = flatten(value, is_leaf=stages_as_tensor)
    data = tuple(leaf for leaf in leaves if stages_as_tensor(leaf))
    if not data:
        return None, ()
    return Shown(tree, tuple(SLOT if stages_as_tensor(leaf) else leaf for leaf in leaves)), data


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
        shown, data = (None, (arg,)) if stages_as_tensor(arg) else shown_of(arg) if is_container(arg) else (None, ())
        inputs += data
        parts.append(shown if shown is not None else None if data else format_value(arg))
    parts = tuple(parts)
    attrs = {"parts": parts, "sep": sep, "end": end}
    if file is not None or flush:  # the common print keeps its short attributes
        attrs.update(file=file, flush=flush)
    record("print", inputs, attrs)


# -- py_function ---------------------------------------------------------------
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


def py_function(
    func: Callable, inp: Sequence[Any], Tout: Any, shape: Any = None, grad: Callable | None = None,  # noqa: N803
) -> Any:
    """Run `func` on NumPy values at every execution; results have the dtypes in `Tout`.

    A staged result's shape is unknown (even its rank) unless `shape=` declares
    it: `()` for a scalar, `(None, 3)`, or a list of shapes when `Tout` is a
    list. A loop that accumulates the result needs it, as its rank must not
    change. Each run checks the result against the declared shape.

    `grad(upstream, *inputs)` makes the call differentiable: given the
    gradient of the result (a list, one per result, when `Tout` is a list)
    and the inputs as NumPy values, it returns one gradient per input (the
    gradient alone for one input; None for zero). The gradient calls it at
    every execution, like `func`. Without it, differentiating through the
    call is an error naming its line.
    """
    if grad is not None and not callable(grad):
        raise TypeError(f"py_function's grad= must be a function grad(upstream, *inputs), not {grad!r}")
    multiple = isinstance(Tout, (list, tuple))
    dtypes = tuple(np.dtype(d) for d in Tout) if multiple else (() if Tout is None else (np.dtype(Tout),))
    shapes = _result_shapes(shape, len(dtypes), multiple) if dtypes else ()
    if current_graph() is None and _taped(inp):
        from runtime.tracing.eager_tape import active_recorder

        # an eager GradientTape records the call, so that its gradient (or its refusal) is not lost
        return active_recorder().apply(
            lambda *staged: py_function(func, list(staged), Tout, shape, grad), tuple(inp), {},
            "ag.py_function", plain=None,
        )
    if current_graph() is None:
        values = [v.numpy() if hasattr(v, "numpy") else v for v in inp]
        result = call_python(
            *values, func=func, Tout=dtypes, multiple=multiple, shapes=shapes, origin=user_origin(2) if shapes else None
        )
        return list(result) if multiple else result
    attrs = {"func": func, "Tout": dtypes, "multiple": multiple}
    if grad is not None:
        attrs["grad"] = grad
    if shapes:
        attrs.update(shapes=shapes, origin=user_origin(2))
    hint = getattr(func, "__name__", "")
    out = record("py_function", tuple(inp), attrs, name=hint if hint.isidentifier() else "py_function")
    if not multiple:
        return out if dtypes else None
    return [record("getitem", (out,), {"index": i}) for i in range(len(dtypes))]


def _taped(inp: Sequence[Any]) -> bool:
    """Whether an eager GradientTape is recording and `inp` holds a value it recorded or a Variable."""
    from runtime.tracing.eager_tape import TapedArray, active_recorder

    recorder = active_recorder()
    if recorder is None or not recorder.recording:
        return False
    return any(isinstance(v, TapedArray) or hasattr(v, "assign") for v in flatten(list(inp))[0])


# -- assert ------------------------------------------------------------------
def _message_parts(message: Any) -> tuple[tuple, dict]:
    """The assert op's data inputs and attrs for a message (`assert x > 0, ("bad", x)`)."""
    if message is None or isinstance(message, str):
        return (), {"message": message or ""}
    shown, data = shown_of(message)
    if shown is None:
        return (), {"message": str(message)}
    return data, {"message": "", "shown": shown}


def staged_assert_op(cond_tensor: Any, message: Any, origin: Origin | None) -> None:
    """An `assert` on a tensor: checked at every run of the graph (at once outside a trace).
    `message` is a string, or the message object itself when it holds tensors."""
    if current_graph() is None or not stages_as_tensor(cond_tensor):
        check_assertion(cond_tensor, message=message if isinstance(message, str) else str(message), origin=origin)
        return
    origin = origin if origin is not None else user_origin(2)
    data, attrs = _message_parts(message)
    record("assert", (cond_tensor, *data), {**attrs, "origin": origin})
