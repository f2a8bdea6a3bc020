"""is_staged: the one test of whether a value is symbolic, over a registry of staged types.

Operators, NumPy dispatch and the front-end all ask this, so another tracer's
values (a JAX tracer, a future TensorArray of another engine) become staged
everywhere by one `register_staged_type` call.
"""

from __future__ import annotations

from typing import Any

__all__ = ["register_staged_type", "is_staged", "stages_as_tensor", "staged_types"]

_TYPES: tuple[type, ...] = ()


def register_staged_type(cls: type) -> type:
    """Make instances of `cls` (and its subclasses) staged values; returns `cls` (a decorator)."""
    global _TYPES
    if cls not in _TYPES:
        _TYPES = (*_TYPES, cls)
    return cls


def staged_types() -> tuple[type, ...]:
    return _TYPES


def is_staged(value: Any) -> bool:
    """Whether `value` is symbolic: known only when the graph runs (a Tensor)."""
    return isinstance(value, _TYPES)


def stages_as_tensor(value: Any) -> bool:
    """Whether an op given `value` records a tensor input: a staged value, or an object that
    stands for one (`__autograph_tensor__`: a Variable is read, a TensorArray gives its handle)."""
    return isinstance(value, _TYPES) or hasattr(value, "__autograph_tensor__")
