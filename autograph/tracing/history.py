"""Why a Function traced: one `TraceRecord` per trace, with the reason in words.

A retrace is only ever caused by a cache key that differs from every earlier
one; the reason names what differs from the *nearest* earlier trace (the one
whose key differs in the fewest arguments), and how to avoid it:

    >>> f.experimental_get_tracing_history()[1].reason
    "argument 'n': Python int 3 -> 4 (a Python number is a constant; pass np.int64(n) or use follow_type_hints)"

The keys compared are each parameter's share of the cache key
(`retracing.param_keys`): a TreeDef and one key part per leaf.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from autograph.tracing.keys import Identity, key_value

__all__ = ["TraceRecord", "History", "retrace_reason", "signature_text", "describe_part"]

FIRST_CALL = "first call"


@dataclass(frozen=True)
class TraceRecord:
    """One trace of a Function: its signature (text) and why it traced."""

    signature: str
    reason: str

    def __str__(self) -> str:
        return f"{self.signature}: {self.reason}"


class History:
    """A Function's traces so far, as records, and each one's parameter keys (to compare)."""

    __slots__ = ("records", "keys", "relaxing")

    def __init__(self, relaxing: bool) -> None:
        self.records: list[TraceRecord] = []
        self.keys: list[dict[str, Any]] = []
        self.relaxing = relaxing

    def reason(self, keys: dict[str, Any]) -> str:
        """Why a trace with these parameter keys is needed."""
        return retrace_reason(keys, self.keys, self.relaxing)

    def add(self, name: str, keys: dict[str, Any], reason: str) -> None:
        self.records.append(TraceRecord(signature_text(name, keys), reason))
        self.keys.append(keys)


def describe_part(part: Any) -> str:
    """A key part in words: 'float32[3]', 'Python int 3', 'a Model object'."""
    if type(part) is Identity:
        obj = part.ref()
        return "a dead object" if obj is None else f"a {type(obj).__name__} object"
    if isinstance(part, tuple) and len(part) == 2:
        kind, value = part
        if isinstance(kind, np.dtype):
            dims = "" if value is None else ", ".join("?" if d is None else str(d) for d in value)
            return f"{kind.name}[{dims}]" if value is not None else f"{kind.name}[...]"
        if isinstance(kind, type):
            if kind is type(None):
                return "None"
            return f"Python {kind.__name__} {key_value(value)!r}"
    return repr(part)


def signature_text(name: str, keys: dict[str, Any]) -> str:
    """`name(a: float32[3], n: Python int 3)` from each parameter's key share."""
    params = []
    for param, (tree, parts) in keys.items():
        if len(parts) == 1 and _is_leaf(tree):
            params.append(f"{param}: {describe_part(parts[0])}")
        else:
            params.append(f"{param}: {_structure(tree)} of [{', '.join(describe_part(p) for p in parts)}]")
    return f"{name}({', '.join(params)})"


def retrace_reason(keys: dict[str, Any], earlier: list[dict[str, Any]], reduce_retracing: bool) -> str:
    """Why a trace with these parameter keys was needed, against the nearest of `earlier`."""
    if not earlier:
        return FIRST_CALL
    nearest = min(reversed(earlier), key=lambda before: _distance(before, keys))  # ties: the latest
    reasons = [
        _argument_reason(param, nearest.get(param), share, reduce_retracing)
        for param, share in keys.items()
        if nearest.get(param) != share
    ]
    return "; ".join(reasons) if reasons else "the arguments' key changed (an object it named was collected)"


def _distance(before: dict[str, Any], keys: dict[str, Any]) -> int:
    return sum(before.get(param) != share for param, share in keys.items())


def _argument_reason(param: str, before: Any, after: Any, reduce_retracing: bool) -> str:
    if before is None:
        return f"argument {param!r} given for the first time"
    (tree_a, parts_a), (tree_b, parts_b) = before, after
    if tree_a != tree_b:
        return (
            f"argument {param!r}: {_structure(tree_a, parts_a)} -> {_structure(tree_b, parts_b)} "
            f"(a different nesting of containers traces anew)"
        )
    for index, (a, b) in enumerate(zip(parts_a, parts_b)):
        if a != b:
            where = "" if len(parts_a) == 1 else f" (leaf {index})"
            after = describe_part(b)
            if _python_kind(a) is not None and _python_kind(a) is _python_kind(b):
                after = repr(key_value(b[1]))  # "Python int 3 -> 4"
            advice = _advice(param, a, b, reduce_retracing)
            return f"argument {param!r}{where}: {describe_part(a)} -> {after}{advice}"
    return f"argument {param!r} changed"


def _advice(param: str, before: Any, after: Any, reduce_retracing: bool) -> str:
    if type(after) is Identity:
        return " (another object: each object passed traces its own graph; pass its arrays instead)"
    kind_a, kind_b = before[0] if isinstance(before, tuple) else None, after[0]
    if isinstance(kind_b, np.dtype):
        if not isinstance(kind_a, np.dtype):
            return " (a Python value is a constant of its trace; an array is an input)"
        if kind_a != kind_b:
            return " (each dtype traces its own graph)"
        shape_a, shape_b = before[1], after[1]
        if shape_a is not None and shape_b is not None and len(shape_a) == len(shape_b):
            if reduce_retracing:
                return " (an input_signature with None dimensions would generalise)"
            return " (reduce_retracing=True would generalise)"
        return " (a new rank traces anew; an input_signature with shape=None would generalise)"
    if kind_b in (int, float, complex, bool):
        numpy_type = {int: "np.int64", float: "np.float64", complex: "np.complex128", bool: "np.bool_"}[kind_b]
        return (
            f" (a Python number is a constant; pass {numpy_type}({param}) or use follow_type_hints)"
        )
    return " (a Python value is a constant of its trace)"


def _python_kind(part: Any) -> type | None:
    if isinstance(part, tuple) and len(part) == 2 and isinstance(part[0], type):
        return part[0]
    return None


def _is_leaf(tree: Any) -> bool:
    return getattr(tree, "kind", None) == "leaf"


def _structure(tree: Any, parts: tuple = ()) -> str:
    kind = getattr(tree, "kind", None)
    if kind is None or _is_leaf(tree):
        return describe_part(parts[0]) if len(parts) == 1 else "a value"
    return f"{kind} of {len(tree.children)}"
