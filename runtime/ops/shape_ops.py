"""Ops that move, join or replicate elements: reshape, transpose, concatenate, where, ...

Each op has a shape rule written over possibly-unknown dims; the dtype comes
from NumPy on tiny arrays. `elementwise_rule` (broadcast shapes) serves the
non-ufunc functions that broadcast their arguments (where, clip, isclose).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.calls import staging_error
from runtime.ops.define import define
from runtime.ops.probing import elementwise_type, probe
from runtime.ops.shapes import broadcast, known_product, normalize_axes, reshaped, shape_of

__all__ = ["elementwise_rule", "like_rule", "RULES"]


def elementwise_rule(fn: Callable) -> Callable[..., TensorType]:
    """Shapes broadcast; dtype from `fn` on empty arrays (scalars stay weak)."""
    return lambda *args, **kwargs: elementwise_type(fn, args, kwargs)


def like_rule(fn: Callable) -> Callable[..., TensorType]:
    """zeros_like and friends: the input's shape (or `shape=`), NumPy's dtype."""

    def rule(a: Any, *args: Any, **kwargs: Any) -> TensorType:
        value = probe(fn, (a, *args), {**kwargs, "shape": None} if "shape" in kwargs else kwargs, small=True)
        if kwargs.get("shape") is not None:
            shape = kwargs["shape"]
            return TensorType(value.dtype, (shape,) if isinstance(shape, int) else tuple(shape))
        return TensorType(value.dtype, shape_of(a))

    return rule


def _reshape_rule(a: TensorType, shape: Any = None, order: str = "C", **kw: Any) -> TensorType:
    if isinstance(shape, TensorType):
        rank = shape.shape[0] if shape.shape else None
        return TensorType(a.dtype, None if rank is None else (None,) * rank)
    dims = (shape,) if not isinstance(shape, tuple) else shape
    dims = tuple(None if isinstance(d, TensorType) else int(d) for d in dims)
    if any(d is not None and d < -1 for d in dims):
        raise staging_error(f"reshape: negative dimension in {dims}")
    return TensorType(a.dtype, reshaped(a.shape, dims))


def _transpose_rule(a: TensorType, axes: Any = None) -> TensorType:
    if a.shape is None:
        return a if axes is None else TensorType(a.dtype, (None,) * len(axes))
    if axes is None:
        return TensorType(a.dtype, a.shape[::-1])
    order = normalize_axes(axes, len(a.shape))
    if len(order) != len(a.shape):
        raise staging_error(f"transpose: axes {axes} don't match a tensor of rank {len(a.shape)}")
    return TensorType(a.dtype, tuple(a.shape[i] for i in order))


def _squeeze_rule(a: TensorType, axis: Any = None) -> TensorType:
    if a.shape is None:
        return a
    if axis is None:
        # An unknown dim may or may not be 1: the result's rank is unknown (pass axis= to keep it).
        return TensorType(a.dtype, None if None in a.shape else tuple(d for d in a.shape if d != 1))
    axes = normalize_axes(axis, len(a.shape))
    for i in axes:
        if a.shape[i] not in (1, None):
            raise staging_error(f"squeeze: axis {i} has size {a.shape[i]}, not 1")
    return TensorType(a.dtype, tuple(d for i, d in enumerate(a.shape) if i not in axes))


def _expand_dims_rule(a: TensorType, axis: Any) -> TensorType:
    if a.shape is None:
        return a
    count = len(axis) if isinstance(axis, tuple) else 1
    axes = normalize_axes(axis, len(a.shape) + count)
    dims = iter(a.shape)
    return TensorType(a.dtype, tuple(1 if i in axes else next(dims) for i in range(len(a.shape) + count)))


def _broadcast_to_rule(a: TensorType, shape: Any, **kw: Any) -> TensorType:
    dims = (shape,) if not isinstance(shape, tuple) else shape
    dims = tuple(None if isinstance(d, TensorType) else int(d) for d in dims)
    target = broadcast(a.shape, dims)
    if target is not None and len(target) != len(dims):
        raise staging_error(f"broadcast_to: cannot broadcast {a.shape_str()} to {dims}")
    return TensorType(a.dtype, dims if target is None else tuple(d if d is not None else t for d, t in zip(dims, target)))


def _parts(arrays: Any) -> list[TensorType]:
    if isinstance(arrays, TensorType):
        raise staging_error("joining a single tensor: pass a list of tensors, e.g. np.stack([a, b])")
    return [a if isinstance(a, TensorType) else TensorType(np.asarray(a).dtype, np.shape(a)) for a in arrays]


def _join_dtype(fn: Callable, parts: list[TensorType], kwargs: dict) -> np.dtype:
    samples = [np.zeros((1,) * (p.rank or 1), p.dtype) for p in parts]
    return np.asarray(probe(fn, (samples,), kwargs)).dtype


def _concatenate_rule(arrays: Any, axis: Any = 0, **kwargs: Any) -> TensorType:
    parts = _parts(arrays)
    dtype = _join_dtype(np.concatenate, parts, {"axis": None, **{k: v for k, v in kwargs.items() if k != "axis"}})
    if any(p.shape is None for p in parts):
        return TensorType(dtype, None)
    if axis is None:
        sizes = [known_product(p.shape) for p in parts]
        return TensorType(dtype, (None if None in sizes else sum(sizes),))
    ranks = {len(p.shape) for p in parts}
    if len(ranks) != 1 or 0 in ranks:
        raise staging_error(f"concatenate: all inputs need the same rank >= 1, got {[p.shape for p in parts]}")
    (ax,) = normalize_axes(axis, ranks.pop())
    out = list(_same_dims([p.shape for p in parts], skip=ax, what="concatenate"))
    sizes = [p.shape[ax] for p in parts]
    out[ax] = None if None in sizes else sum(sizes)
    return TensorType(dtype, tuple(out))


def _same_dims(shapes: list[tuple], skip: int | None, what: str) -> tuple:
    out = []
    for i, dims in enumerate(zip(*shapes)):
        known = {d for d in dims if d is not None}
        if i != skip and len(known) > 1:
            raise staging_error(f"{what}: input shapes differ: {shapes}")
        out.append(known.pop() if len(known) == 1 else None)
    return tuple(out)


def _stack_rule(arrays: Any, axis: int = 0, **kwargs: Any) -> TensorType:
    parts = _parts(arrays)
    dtype = _join_dtype(np.concatenate, parts, {"axis": None, **{k: v for k, v in kwargs.items() if k != "out"}})
    if any(p.shape is None for p in parts):
        return TensorType(dtype, None)
    if len({len(p.shape) for p in parts}) != 1:
        raise staging_error(f"stack: all inputs need the same shape, got {[p.shape for p in parts]}")
    inner = _same_dims([p.shape for p in parts], skip=None, what="stack")
    (ax,) = normalize_axes(axis, len(inner) + 1)
    return TensorType(dtype, inner[:ax] + (len(parts),) + inner[ax:])


def _hstack_rule(tup: Any, **kwargs: Any) -> TensorType:
    parts = [p if p.rank != 0 else TensorType(p.dtype, (1,)) for p in _parts(tup)]
    axis = 0 if parts and parts[0].rank == 1 else 1
    return _concatenate_rule(tuple(parts), axis=axis, **kwargs)


def _vstack_rule(tup: Any, **kwargs: Any) -> TensorType:
    parts = [TensorType(p.dtype, (1,) * (2 - len(p.shape)) + p.shape) if p.shape is not None and len(p.shape) < 2 else p for p in _parts(tup)]
    return _concatenate_rule(tuple(parts), axis=0, **kwargs)


def _ravel_rule(a: TensorType, order: str = "C") -> TensorType:
    return TensorType(a.dtype, (None if a.shape is None else known_product(a.shape),))


def _swapaxes_rule(a: TensorType, axis1: int, axis2: int) -> TensorType:
    if a.shape is None:
        return a
    i, j = normalize_axes((axis1, axis2), len(a.shape)) if axis1 != axis2 else normalize_axes(axis1, len(a.shape)) * 2
    dims = list(a.shape)
    dims[i], dims[j] = dims[j], dims[i]
    return TensorType(a.dtype, tuple(dims))


def _same_rule(a: TensorType, *args: Any, **kwargs: Any) -> TensorType:
    return a


RULES: dict[str, Callable[..., TensorType]] = {
    "reshape": _reshape_rule, "transpose": _transpose_rule, "squeeze": _squeeze_rule,
    "expand_dims": _expand_dims_rule, "broadcast_to": _broadcast_to_rule,
    "concatenate": _concatenate_rule, "stack": _stack_rule, "hstack": _hstack_rule,
    "vstack": _vstack_rule, "ravel": _ravel_rule, "swapaxes": _swapaxes_rule,
    "copy": _same_rule, "flip": _same_rule, "roll": _same_rule,
    "fliplr": _same_rule, "flipud": _same_rule,
}
for _name, _rule in RULES.items():
    define(_name, getattr(np, _name), _rule)
for _name in ("where", "clip", "isclose", "nan_to_num", "real_if_close"):
    define(_name, getattr(np, _name), elementwise_rule(getattr(np, _name)))
for _name in ("zeros_like", "ones_like", "full_like"):
    define(_name, getattr(np, _name), like_rule(getattr(np, _name)))


def _sort_rule(fn: Callable) -> Callable[..., TensorType]:
    """sort/argsort keep the shape; axis=None flattens first."""

    def rule(a: TensorType, axis: Any = -1, *args: Any, **kwargs: Any) -> TensorType:
        dtype = np.asarray(probe(fn, (a, axis, *args), kwargs, small=True)).dtype
        if axis is None:
            return TensorType(dtype, _ravel_rule(a).shape)
        if a.shape is not None:
            normalize_axes(axis, len(a.shape))
        return TensorType(dtype, a.shape)

    return rule


for _name in ("sort", "argsort"):
    define(_name, getattr(np, _name), _sort_rule(getattr(np, _name)))
