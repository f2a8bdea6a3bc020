"""What a staged `for` loop can iterate: a length and an item at a staged index.

A staged for loop counts `i` from 0 to `staged_length()` and binds the loop
target to `staged_item(i)`. Tensors iterate over their first dimension,
TensorArrays over their elements, staged lists (`staged_lists`) over theirs,
`ag.range` (`runtime.operators.ranges`) over its values; `enumerate` and `zip` (the
builtin overrides) combine them.

    for x, y in pairs:         # pairs: int64[None, 2]
        ...                    # x = pairs[i][0], y = pairs[i][1], staged
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from runtime.ir.origin import user_origin
from runtime.operators.staged_state import describe, rule_error
from runtime.tracing.frontend import get_frontend

__all__ = [
    "StagedIterable",
    "TensorIterable",
    "TensorArrayIterable",
    "EnumerateIterable",
    "ZipIterable",
    "as_staged_iterable",
    "is_staged_iterable",
    "unpack_item",
    "iterate_for_numpy",
]


class StagedIterable:
    """Base: `__autograph_staged_iterable__` makes for_stmt stage the loop."""

    __autograph_staged_iterable__ = True

    def staged_length(self) -> Any:
        raise AssertionError(f"{type(self).__name__} must define staged_length")

    def staged_item(self, index: Any) -> Any:
        raise AssertionError(f"{type(self).__name__} must define staged_item")


def tensor_length(tensor: Any) -> Any:
    """The first dimension of a tensor: a Python int when static, else staged."""
    shape = tensor.shape
    if shape is None or len(shape) == 0:
        if shape is not None:
            raise rule_error(
                f"a staged for loop iterates over a 0-d Tensor ({tensor.name})", user_origin(),
                "Iterate over a Tensor of rank 1 or more (its first dimension), or over ag.range(t).",
            )
    elif shape[0] is not None:
        return shape[0]
    return np.shape(tensor)[0]


class TensorIterable(StagedIterable):
    """A Tensor's rows (its first dimension)."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def staged_length(self) -> Any:
        return tensor_length(self.tensor)

    def staged_item(self, index: Any) -> Any:
        return self.tensor[index]


class TensorArrayIterable(StagedIterable):
    """A TensorArray's elements."""

    def __init__(self, array: Any) -> None:
        self.array = array

    def staged_length(self) -> Any:
        return self.array.size()

    def staged_item(self, index: Any) -> Any:
        return self.array.read(index)


class EnumerateIterable(StagedIterable):
    """`enumerate(staged, start)`: (start + i, item) pairs."""

    def __init__(self, inner: StagedIterable, start: Any = 0) -> None:
        self.inner, self.start = inner, start

    def staged_length(self) -> Any:
        return self.inner.staged_length()

    def staged_item(self, index: Any) -> Any:
        return (index + self.start if not _is_zero(self.start) else index, self.inner.staged_item(index))


class ZipIterable(StagedIterable):
    """`zip(a, b, ...)` where at least one is staged: as long as the shortest."""

    def __init__(self, inners: list[StagedIterable]) -> None:
        self.inners = inners

    def staged_length(self) -> Any:
        lengths = [inner.staged_length() for inner in self.inners]
        if all(isinstance(n, int) for n in lengths):
            return min(lengths)
        result = lengths[0]
        for length in lengths[1:]:
            result = np.minimum(result, length)
        return result

    def staged_item(self, index: Any) -> Any:
        return tuple(inner.staged_item(index) for inner in self.inners)


class _SequenceIterable(StagedIterable):
    """A Python list/tuple zipped with a staged iterable: its elements stacked."""

    def __init__(self, values: Any) -> None:
        self.values = values

    def staged_length(self) -> Any:
        return len(self.values)

    def staged_item(self, index: Any) -> Any:
        frontend = get_frontend()
        if any(frontend.is_staged(v) for v in self.values):
            return np.stack(list(self.values))[index]
        return frontend.constant(np.stack([np.asarray(v) for v in self.values]))[index]


def iterate_for_numpy(value: Any):
    """`iter()` of a staged list or range: only NumPy's stack dispatch may iterate one.

    `np.stack(l)` looks for overrides by iterating `l`; yielding the value
    itself routes the call to its `__array_function__`. Any other Python
    iteration (a comprehension, `list(l)`) cannot know the length while
    tracing, so it is an error that says what to do instead.
    """
    import sys

    if sys._getframe(2).f_code.co_name == "_arrays_for_stack_dispatcher":
        return iter((value,))
    raise rule_error(
        f"a staged {type(value).__name__} cannot be iterated by Python while tracing (its length "
        f"is known only when the graph runs)", user_origin(),
        "Iterate it with a for statement in converted code (a staged loop), or use np.stack(...) "
        "to get its values as a Tensor.",
    )


def _is_zero(value: Any) -> bool:
    return isinstance(value, int) and value == 0


def is_staged_iterable(value: object) -> bool:
    """A Tensor, TensorArray or staged range/list: a for loop over it is staged (for_stmt
    asks only for types other than the common Python iterables)."""
    frontend = get_frontend(value)
    return (
        frontend.is_staged(value)
        or frontend.is_tensor_array(value)
        or bool(getattr(value, "__autograph_staged_iterable__", False))
    )


def as_staged_iterable(value: Any) -> StagedIterable:
    """The staged iterable for a Tensor, TensorArray, staged range/list, or a Python sequence."""
    frontend = get_frontend(value)
    if isinstance(value, StagedIterable):
        return value
    if frontend.is_staged(value):
        return TensorIterable(value)
    if frontend.is_tensor_array(value):
        return TensorArrayIterable(value)
    if hasattr(value, "as_staged_iterable"):
        return value.as_staged_iterable()
    if isinstance(value, (list, tuple, np.ndarray)):
        return _SequenceIterable(value)
    raise rule_error(
        f"a staged loop cannot iterate over {type(value).__name__}", user_origin(),
        "Iterate over a Tensor, an ag.TensorArray or ag.range, or a list of equally shaped arrays.",
    )


def _target_structure(node: ast.expr) -> Any:
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_target_structure(e) for e in node.elts)
    return None


def unpack_item(item: Any, iterate_names: str | None) -> Any:
    """Split staged rows to match a tuple target such as `x, y` or `i, (x, y)`.

    Python cannot unpack a Tensor (its length is not a Python value), so the
    row is indexed along its first (static) dimension instead.
    """
    if not iterate_names or "," not in iterate_names:
        return item
    try:
        target = _target_structure(ast.parse(iterate_names.strip(), mode="eval").body)
    except SyntaxError:
        return item
    return _unpack(item, target)


def _unpack(item: Any, target: Any) -> Any:
    if target is None:
        return item
    frontend = get_frontend(item)
    if frontend.is_staged(item):
        shape = item.shape
        if shape is None or not shape or shape[0] is None:
            raise rule_error(
                f"a staged loop cannot unpack {describe(item, frontend)} into "
                f"{len(target)} names: its first dimension is not known while tracing",
                user_origin(), "Bind the row to one name and index it (row[0], row[1], ...).",
            )
        if shape[0] != len(target):
            raise rule_error(
                f"a staged loop cannot unpack {describe(item, frontend)} into "
                f"{len(target)} names (its first dimension is {shape[0]})", user_origin(),
                f"Use {shape[0]} names in the for target, or index the row.",
            )
        return tuple(_unpack(item[k], sub) for k, sub in enumerate(target))
    if isinstance(item, tuple) and len(item) == len(target):
        return tuple(_unpack(v, sub) for v, sub in zip(item, target))
    return item
