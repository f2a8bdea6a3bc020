"""setitem: `x[key] = value` (and `x[key] += value`) with the converter rebinding `x`.

    x[i] = v        ->  x = ag__.setitem(x, i, v)
    x[i:j] += v     ->  x = ag__.setitem(x, ag__.slice_(i, j, None), lambda: v, '+')

In Python mode it is Python's own statement on the same object (so NumPy's
result, aliases and errors are exactly as written) and `x` is rebound to
itself. While tracing, when `x`, the key or the value is staged, it is the
functional update "setitem": `x` is rebound to a new Tensor. That is only
faithful when nothing else sees `x`'s memory, so the converter passes
`refused` (why `x` may share memory: a parameter, another name, a view) for
names it cannot prove the function created, and a staged write to those is a
StagingError saying to copy first.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.origin import user_origin
from runtime.ir.structure import flatten
from runtime.ir.user_frames import note_user_code
from runtime.tracing.dispatch import index_key
from runtime.tracing.record import constant_node, stage
from runtime.tracing.staged import stages_as_tensor
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import graph_being_built

__all__ = ["setitem"]

_BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "@": operator.matmul, "&": operator.and_, "|": operator.or_,
    "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}
_INPLACE = {
    "+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv, "//": operator.ifloordiv,
    "%": operator.imod, "**": operator.ipow, "@": operator.imatmul, "&": operator.iand, "|": operator.ior,
    "^": operator.ixor, "<<": operator.ilshift, ">>": operator.irshift,
}


_FUNCTION = type(lambda: None)
_UNREAD = object()


def setitem(
    target: Any, key: Any, value: Any, op: str | None = None, refused: str | None = None,
    refused_rows: str | None = None,
) -> Any:
    """`target[key] = value` (`op`: the augmented operator, '+' for `+=`); the array to rebind.

    With `op`, `value` may be a function that computes the value: Python reads
    `target[key]` before it evaluates the value of `target[key] += value`.

    `refused_rows`: why the write is refused when `target` is not a vector (a
    row of it bound to a name is a view of a matrix, a copy of a vector's item).
    """
    try:
        if op is not None and type(value) is _FUNCTION:
            current = target[key]
            value = value()
        else:
            current = _UNREAD
        graph = graph_being_built()
        array = isinstance(target, (Tensor, np.ndarray))  # a dict or list holds staged values as they are
        if array and refused is None and refused_rows is not None and np.ndim(_shape_holder(target)) != 1:
            refused = refused_rows
        if graph is not None and array and (_holds_staged((target, key, value)) or _in_staged_block(graph, target, refused)):
            return _staged(graph, target, key, value, op, refused)
        if graph is not None and graph.parent is not None and type(target) in (list, dict):
            target = _own_copy(target, refused)
        if op is None:
            target[key] = value
        else:
            target[key] = _INPLACE[op](target[key] if current is _UNREAD else current, value)
        return target
    except Exception as error:
        note_user_code(error)
        raise


def _shape_holder(target: Any) -> Any:
    """Something np.ndim reads without converting a Tensor (an unknown rank counts as not a vector)."""
    if isinstance(target, Tensor):
        return np.empty((0,) * target.ndim) if target.ndim is not None else np.empty((0, 0))
    return target


def _in_staged_block(graph: Any, target: Any, refused: str | None) -> bool:
    """Whether a concrete array of the function's own is written in a staged branch or loop body.

    Written in place while tracing, it would change whether or not the branch
    runs when the graph runs (both branches are traced): it is updated as a
    staged value instead. At the top level of a trace the write happens once,
    as in every run, so the array stays concrete."""
    return graph.parent is not None and refused is None and isinstance(target, np.ndarray)


def _own_copy(target: list | dict, refused: str | None) -> list | dict:
    """A shallow copy of a list or dict written in a staged branch or loop body, to write into.

    Both branches of a staged if are traced, one after the other: written in
    place, the one list would hold what the first branch stored while the
    second is traced. The copy is rebound to the name and carried like any
    value the branch assigns; nothing else sees the original, since the
    converter proved it the function's own (`refused` is None). Otherwise
    whatever shares it would not see the write, where Python writes through."""
    if refused is not None:
        origin = user_origin(3)
        at = f"{origin}: " if origin is not None else ""
        kind = type(target).__name__
        raise StagingError(
            f"{at}cannot stage an item assignment to a {kind} in a tensor-dependent if or loop: both branches "
            f"are traced, so the write is made on a copy, which whatever shares the {kind} would not see "
            f"(Python writes through). The {kind} is {refused}."
        )
    return target.copy()


def _holds_staged(values: Any) -> bool:
    leaves, _ = flatten(values, is_leaf=stages_as_tensor)
    return any(stages_as_tensor(leaf) or isinstance(leaf, slice) and _holds_staged(
        (leaf.start, leaf.stop, leaf.step)) for leaf in leaves)


def _staged(graph: Any, target: Any, key: Any, value: Any, op: str | None, refused: str | None) -> Tensor:
    origin = user_origin(3)
    at = f"{origin}: " if origin is not None else ""
    if refused is not None:
        raise StagingError(
            f"{at}cannot stage an item assignment to {refused}. (Staged, the write makes a new array, which "
            f"whatever shares the old one's memory would not see, where NumPy writes through.)"
        )
    if isinstance(target, np.ndarray):
        tensor = Tensor(constant_node(target, graph), graph)
    elif hasattr(target, "__autograph_tensor__"):
        raise StagingError(
            f"{at}cannot assign to items of a {type(target).__name__} inside a Function; use its own "
            f"methods (a Variable: .assign(new_value) with a value built by np.where or an update)."
        )
    elif isinstance(target, Tensor):
        tensor = target
    else:
        raise StagingError(
            f"{at}cannot stage an item assignment to a {type(target).__name__} with a staged key or value; "
            f"only arrays can be updated (a list: build a new one, or use an ag.TensorArray)."
        )
    if op is not None:
        current = tensor[key]
        updated = _BINARY[op](current, value)
        result_dtype = updated.dtype if isinstance(updated, Tensor) else np.asarray(updated).dtype
        # NumPy updates an array item (x[i] of a 1-d x: a scalar) out of place, then assigns (casting
        # unsafely); a part of the array (a slice, a mask, a row) in place, under the same_kind rule
        in_place = current.ndim != 0
        if in_place and not np.can_cast(result_dtype, tensor.dtype, "same_kind"):
            raise StagingError(
                f"{at}x[...] {op}= ...: cannot cast the {result_dtype.name} result to the array's dtype "
                f"{tensor.dtype.name} with casting rule 'same_kind' (NumPy refuses it too); cast the value "
                f"with .astype(np.{tensor.dtype.name}), or assign x[...] = x[...] {op} value."
            )
        value = updated
    return stage("setitem", (tensor, index_key(key), value), {})
