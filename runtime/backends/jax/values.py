"""How values look while a graph is lowered: static NumPy values (known while
lowering, so sizes and trip counts stay Python values) or JAX arrays, and a
TensorArray as a preallocated buffer. Shared by every part of the lowering.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["TensorArrayBuffer", "_Collector", "_NOT_FOLDED", "_is_static", "_register_pytree", "_shape", "_dtype", "_host"]


_STATIC = (np.ndarray, np.generic, int, float, bool, complex)
_NOT_FOLDED = object()


class TensorArrayBuffer:
    """A TensorArray while lowering: `items[capacity, *element]` and which of them are written.

    A pytree (registered by `Lowering`): the arrays are its leaves, so it
    can be a loop variable or a branch result; its size is static.
    """

    __slots__ = ("items", "written", "size")

    def __init__(self, items: Any, written: Any, size: int) -> None:
        self.items = items
        self.written = written
        self.size = size


_REGISTERED = [False]


def _register_pytree(jax: Any) -> None:
    if not _REGISTERED[0]:
        jax.tree_util.register_pytree_node(
            TensorArrayBuffer,
            lambda b: ((b.items, b.written), b.size),
            lambda size, children: TensorArrayBuffer(children[0], children[1], size),
        )
        _REGISTERED[0] = True


def _is_static(value: Any) -> bool:
    return isinstance(value, _STATIC)


class _Collector:
    """A TensorArray inside a scanned loop: it only takes the row this iteration writes."""

    __slots__ = ("size", "value")

    def __init__(self, size: int, value: Any = None) -> None:
        self.size = size
        self.value = value


def _shape(value: Any) -> Any:
    if isinstance(value, _Collector):
        return ("row", value.size)
    if isinstance(value, TensorArrayBuffer):
        return (value.size, None if value.items is None else tuple(value.items.shape[1:]))
    return tuple(np.shape(value)) if _is_static(value) else tuple(value.shape)



def _dtype(value: Any) -> np.dtype:
    dtype = getattr(value, "dtype", None)
    return np.dtype(dtype) if dtype is not None else np.asarray(value).dtype


def _host(value: Any) -> Any:
    """A callback's argument as the NumPy backend would hold it (0-d as a NumPy scalar)."""
    array = np.asarray(value)
    return array[()] if array.ndim == 0 else array
