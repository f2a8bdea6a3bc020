"""Cache keys: which trace an argument list selects, by the guide's rules.

Each flattened leaf of the arguments contributes one part of the key:

- NumPy arrays and scalars, staged Tensors, TensorSpecs: `(dtype, shape)`,
  the dtype in native byte order (a `>f4` array runs the float32 trace; see
  `runtime.ir.input_arrays`, which also refuses `np.ma` and `np.matrix`);
- Python `bool/int/float/complex/str/bytes/None`: `(type, value)`, so `1`,
  `True` and `1.0` select different traces; a float or complex that `==`
  cannot tell from another value NumPy tells apart (`0.0` and `-0.0`, NaNs
  of either sign) is keyed by its bits (`Exact`), so `-0.0` traces apart
  from `0.0` and a NaN selects the same trace at every call;
- Variables and every other object: its identity, held weakly, so a key
  never keeps an object alive.

The nesting (a TreeDef) is the rest of the key: `[x, y]` and `(x, y)` differ.

    >>> leaf_key(np.zeros((2, 3), np.float32))
    (dtype('float32'), (2, 3))
    >>> leaf_key(1) == leaf_key(True)
    False
"""

from __future__ import annotations

import struct
import weakref
from typing import Any

import numpy as np

from autograph.tracing.spec import TensorSpec
from runtime.backends.jax import is_device_array
from runtime.ir.input_arrays import native_dtype, plain_array
from runtime.tracing.tensor import Tensor

__all__ = [
    "spec_of",
    "Exact",
    "Identity",
    "exact_value",
    "PRIMITIVES",
    "leaf_key",
    "is_tensor_like",
    "is_variable",
    "key_is_alive",
    "key_value",
    "flat_parts",
    "as_tensor_value",
]

PRIMITIVES = (bool, int, float, complex, str, bytes, type(None))
_PRIMITIVE_SET = frozenset(PRIMITIVES)


class Exact:
    """A float or complex key value compared by its bits: `0.0` and `-0.0` differ, a NaN
    equals itself. Used only for zeros and NaNs, where `==` and NumPy disagree."""

    __slots__ = ("value", "bits")

    def __init__(self, value: float | complex) -> None:
        self.value = value
        if type(value) is complex:
            self.bits = struct.pack("<dd", value.real, value.imag)
        else:
            self.bits = struct.pack("<d", value)

    def __eq__(self, other: object) -> bool:
        return type(other) is Exact and other.bits == self.bits

    def __hash__(self) -> int:
        return hash(self.bits)

    def __repr__(self) -> str:
        return repr(self.value)


def exact_value(value: Any) -> Any:
    """The key value of a Python primitive: itself, or `Exact(value)` where `==` is not exact.

    A nonzero, non-NaN float equals only itself, bit for bit; so does a
    complex whose parts are both such floats.
    """
    kind = type(value)
    if kind is float:
        return value if value and value == value else Exact(value)
    if kind is complex:
        return value if value.real and value.imag and value == value else Exact(value)
    return value


def key_value(value: Any) -> Any:
    """The Python value a key value stands for (undoes `exact_value`)."""
    return value.value if type(value) is Exact else value


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
        return (native_dtype(value.dtype), value.shape)
    if kind in _PRIMITIVE_SET:
        return (kind, exact_value(value) if kind is float or kind is complex else value)
    if isinstance(value, np.generic):
        return (value.dtype, ())
    if isinstance(value, np.ndarray):  # a subclass: plain data (memmap), else refused
        value = plain_array(value)
        return (value.dtype, value.shape)
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
            parts.append((native_dtype(value.dtype), value.shape))
        elif kind in _PRIMITIVE_SET:
            parts.append((kind, exact_value(value) if kind is float or kind is complex else value))
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
    from runtime.ir.structure import flatten

    leaves, _ = flatten(value)
    if leaves and all(isinstance(leaf, (bool, int, float, complex)) for leaf in leaves):
        return np.asarray(value)
    return value


def spec_of(leaf: Any) -> TensorSpec | None:
    """The TensorSpec a call's argument leaf traces as (None: a Python value keyed by value)."""
    if isinstance(leaf, TensorSpec):
        return leaf
    if isinstance(leaf, Tensor):
        raise TypeError(
            f"{leaf!r} is a Tensor of a trace that has finished (it leaked out of its "
            f"function, for example through a global); return values from the function instead."
        )
    if is_tensor_like(leaf):
        return TensorSpec.from_value(leaf)
    return None
