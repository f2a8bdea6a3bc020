"""Cache keys: which trace an argument list selects, by the guide's rules.

Each flattened leaf of the arguments contributes one part of the key:

- NumPy arrays and scalars, staged Tensors, TensorSpecs: `(dtype, shape)`;
- Python `bool/int/float/complex/str/bytes/None`: `(type, value)`, so `1`,
  `True` and `1.0` select different traces;
- Variables and every other object: its identity, held weakly, so a key
  never keeps an object alive.

The nesting (a TreeDef) is the rest of the key: `[x, y]` and `(x, y)` differ.

    >>> leaf_key(np.zeros((2, 3), np.float32))
    (dtype('float32'), (2, 3))
    >>> leaf_key(1) == leaf_key(True)
    False
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from autograph.tracing.spec import TensorSpec
from runtime.backends.jax import is_device_array
from runtime.tensor import Tensor

__all__ = [
    "Identity",
    "PRIMITIVES",
    "leaf_key",
    "is_tensor_like",
    "is_variable",
    "key_is_alive",
    "flat_parts",
    "as_tensor_value",
]

PRIMITIVES = (bool, int, float, complex, str, bytes, type(None))
# every NaN keys as this one object: tuples compare items by identity first
_NAN = float("nan")
_PRIMITIVE_SET = frozenset(PRIMITIVES)


class Identity:
    """A key part that stands for one object by identity without keeping it alive."""

    __slots__ = ("ref", "obj_id")

    def __init__(self, obj: Any) -> None:
        self.obj_id = id(obj)
        try:
            self.ref = weakref.ref(obj)
        except TypeError:  # not weakly referenceable: hold it (rare: builtin instances)
            self.ref = _StrongRef(obj)

    def __hash__(self) -> int:
        return self.obj_id

    def __eq__(self, other: object) -> bool:
        if type(other) is not Identity or other.obj_id != self.obj_id:
            return False
        obj = self.ref()
        return obj is not None and obj is other.ref()

    def __repr__(self) -> str:
        obj = self.ref()
        return "<dead object>" if obj is None else f"<{type(obj).__name__} object>"


class _StrongRef:
    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __call__(self) -> Any:
        return self.obj


def is_variable(value: Any) -> bool:
    """Variables stage reads through `__autograph_tensor__`; they are keyed by identity."""
    return not isinstance(value, Tensor) and hasattr(type(value), "__autograph_tensor__")


def is_tensor_like(value: Any) -> bool:
    """Values that become graph inputs (or already are staged); a `jax.Array` too."""
    return isinstance(value, (np.ndarray, np.generic, Tensor, TensorSpec)) or is_device_array(value)


def leaf_key(value: Any) -> Any:
    """The key part of one flattened leaf (see the module docstring)."""
    kind = type(value)
    if kind is np.ndarray:
        return (value.dtype, value.shape)
    if kind in _PRIMITIVE_SET:
        return (kind, _NAN if value != value else value)
    if isinstance(value, np.generic):
        return (value.dtype, ())
    if isinstance(value, (Tensor, TensorSpec)):
        return (value.dtype, value.shape)
    if is_device_array(value):
        return (np.dtype(value.dtype), tuple(value.shape))
    return Identity(value)


def key_is_alive(key: Any) -> bool:
    """False when an object the key names by identity has been collected."""
    parts = key[1] if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], tuple) else ()
    return all(part.ref() is not None for part in parts if type(part) is Identity)


def flat_parts(values: tuple) -> tuple | None:
    """The key parts of arguments that hold no containers (the common case), else None.

    One pass, no TreeDef: calls with only arrays, numbers and objects are keyed
    without flattening.
    """
    parts = []
    for value in values:
        kind = type(value)
        if kind is np.ndarray:
            parts.append((value.dtype, value.shape))
        elif kind in _PRIMITIVE_SET:
            parts.append((kind, _NAN if value != value else value))
        elif isinstance(value, (list, tuple, dict)) or (
            hasattr(kind, "__dataclass_fields__") and not isinstance(value, type)
        ):
            return None
        else:
            parts.append(leaf_key(value))
    return tuple(parts)


def as_tensor_value(value: Any) -> Any:
    """A Python number (or nested list of them) as an array: keyed by dtype, not value.

    Used for arguments annotated `ag.Tensor` under `follow_type_hints=True`.
    """
    if is_tensor_like(value) or isinstance(value, Identity):
        return value
    from runtime.structure import flatten

    leaves, _ = flatten(value)
    if leaves and all(isinstance(leaf, (bool, int, float, complex)) for leaf in leaves):
        return np.asarray(value)
    return value
