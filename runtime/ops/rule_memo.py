"""Remembered answers of the ops' type rules.

A rule (`define`'s `infer`) is a pure function of its input TensorTypes and
the op's literal attrs, and traces ask the same questions again and again:
a while loop's test is staged once to choose the staged path and once more
in its condition graph, and every trace of a function over the same types
asks what the last one asked. Answering runs NumPy on probe arrays under
`warnings.catch_warnings` and `np.errstate` and binds the call's arguments,
tens of µs for a reduction, so each op keeps its recent answers.

Only questions made of immutable values are remembered, with each literal
keyed by its type as well as its value (`1`, `1.0`, `True` and `np.int8(1)`
are different questions); an attr holding anything else (an array, a list)
asks the rule every time. Errors are never remembered: each is raised, with
the user's line, where it happens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Span, Weak

__all__ = ["remembered", "question_key"]

_SIZE = 1024
_ATOMS = frozenset({type(None), bool, int, float, complex, str, type(Ellipsis)})
_SCALAR_KINDS = "biufcmM"  # NumPy scalars that hash by value (not void, object, strings)


class _Unkeyable(Exception):
    """An attr that cannot be part of a key (mutable, or of a type not known to be immutable)."""


def _part(item: Any) -> Any:
    """`item` as plain tuples of hashable values and their types (hashed and compared in C)."""
    kind = type(item)
    if kind in _ATOMS:
        return (kind, item)
    if kind is Slot:
        return (Slot, item.index)
    if kind is Weak:
        return (Weak, type(item.value), item.value)
    if kind is tuple:
        return (tuple, *[_part(v) for v in item])
    if kind is Span:
        return (Span, _part(item.start), _part(item.stop), _part(item.step))
    if isinstance(item, np.dtype) or (isinstance(item, np.generic) and item.dtype.kind in _SCALAR_KINDS):
        return (kind, item)
    if kind is type:
        return (type, item)
    raise _Unkeyable


def question_key(types: Sequence[Any], attrs: Mapping[str, Any]) -> tuple | None:
    """A hashable key for one rule question, or None when it must not be remembered."""
    key: list[Any] = []
    for t in types:
        if type(t) is not TensorType:
            return None
        key.append((t.dtype, t.shape))
    try:
        for name, value in attrs.items():
            key.append((name, _part(value)))
    except _Unkeyable:
        return None
    return tuple(key)


def remembered(infer: Callable[[Sequence[Any], Mapping[str, Any]], Any]) -> Callable[..., Any]:
    """`infer(types, attrs)`, answered from memory when the same question was asked before.

    The memory holds the last `_SIZE` questions at most (it starts over when full).
    """
    answers: dict[tuple, Any] = {}

    def ask(types: Sequence[Any], attrs: Mapping[str, Any]) -> Any:
        key = question_key(types, attrs)
        if key is None:
            return infer(types, attrs)
        answer = answers.get(key)
        if answer is None:
            answer = infer(types, attrs)
            if len(answers) >= _SIZE:
                answers.clear()
            answers[key] = answer
        return answer

    return ask
