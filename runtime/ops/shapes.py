"""Shape algebra over possibly-unknown dims (None): broadcasting, reductions, reshapes, matmul.

NumPy's rules written out for shapes a trace may not know fully; dtypes and
the long tail of functions' shapes come from running NumPy itself
(`runtime.ops.probing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime.ir.types import Shape, TensorType
from runtime.ops.calls import staging_error

_PY_NUMBERS = frozenset({bool, int, float, complex})

__all__ = ["flat_items", "broadcast", "normalize_axes", "reduced", "known_product", "reshaped", "matmul_shape", "shape_of"]


def broadcast(*shapes: Shape, what: str = "operands") -> Shape:
    """NumPy broadcasting; None vs n is n (n != 1), None vs 1 or None is None."""
    if any(s is None for s in shapes):
        return None
    shaped = [s for s in shapes if s]  # () broadcasts to anything: drop it
    if not shaped:
        return ()
    if all(s == shaped[0] for s in shaped):
        return tuple(shaped[0])  # equal shapes broadcast to themselves
    rank = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    out: list[int | None] = []
    for dims in zip(*padded):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            shown = " ".join(TensorType(np.float64, s).shape_str() for s in shapes)
            raise staging_error(f"{what} could not be broadcast together with shapes {shown}")
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def normalize_axes(axis: Any, rank: int) -> tuple[int, ...]:
    """Axes as non-negative ints (NumPy's AxisError, as a StagingError, when out of range)."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise staging_error(f"axis {a} is out of bounds for a tensor of rank {rank}")
        out.append(a % rank if rank else 0)
    if len(set(out)) != len(out):
        raise staging_error(f"repeated axis in {axis!r}")
    return tuple(out)


def reduced(shape: Shape, axis: Any, keepdims: bool) -> Shape:
    """The shape after reducing `axis` (None: all axes)."""
    if shape is None:
        return () if axis is None and not keepdims else None
    if shape == () and isinstance(axis, int) and axis in (0, -1):
        return ()  # NumPy's ufunc reductions accept axis 0 of a 0-d array
    axes = tuple(range(len(shape))) if axis is None else normalize_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def known_product(shape: Sequence[int | None]) -> int | None:
    total = 1
    for d in shape:
        if d is None:
            return None
        total *= d
    return total


def reshaped(shape: Shape, new_shape: Sequence[int | None]) -> Shape:
    """The shape `reshape` gives; -1 is solved when the other sizes are known."""
    new_shape = tuple(new_shape)
    if sum(1 for d in new_shape if d == -1) > 1:
        raise staging_error(f"can only specify one unknown dimension (-1) in reshape {new_shape}")
    total = None if shape is None else known_product(shape)
    rest = known_product([d for d in new_shape if d != -1])
    if -1 not in new_shape:
        if total is not None and rest is not None and total != rest:
            raise staging_error(f"cannot reshape a tensor of shape {shape} into shape {new_shape}")
        return new_shape
    solved = None
    if total is not None and rest is not None:
        if rest == 0 or total % rest:
            raise staging_error(f"cannot reshape a tensor of shape {shape} into shape {new_shape}")
        solved = total // rest
    return tuple(solved if d == -1 else d for d in new_shape)


def matmul_shape(a: TensorType, b: TensorType) -> Shape:
    """`a @ b`: batch dims broadcast, the contracted sizes must agree."""
    if a.shape is None or b.shape is None:
        return None
    if not a.shape or not b.shape:
        raise staging_error("matmul: a scalar operand is not allowed; use * instead")
    sa = (1,) + a.shape if len(a.shape) == 1 else a.shape
    sb = b.shape + (1,) if len(b.shape) == 1 else b.shape
    if sa[-1] is not None and sb[-2] is not None and sa[-1] != sb[-2]:
        raise staging_error(f"matmul: contracted sizes differ: {a.shape_str()} @ {b.shape_str()}")
    batch = broadcast(sa[:-2], sb[:-2])
    assert batch is not None
    out = batch + ((sa[-2],) if len(a.shape) > 1 else ()) + ((sb[-1],) if len(b.shape) > 1 else ())
    return out


def shape_of(item: Any) -> Shape:
    """Shape of a rule argument: a TensorType's, or NumPy's for a literal (nested tuples too)."""
    if isinstance(item, TensorType):
        return item.shape
    if type(item) in _PY_NUMBERS:
        return ()
    if isinstance(item, tuple) and any(isinstance(v, (TensorType, tuple)) for v in item):
        inner = broadcast(*(shape_of(v) for v in item))
        return None if inner is None else (len(item),) + inner
    return np.shape(item)


def flat_items(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, (tuple, list)):
            out += flat_items(item)
        elif isinstance(item, dict):
            out += flat_items(item.values())
        else:
            out.append(item)
    return out
