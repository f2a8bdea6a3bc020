"""The "index" op: `t[key]` with NumPy's basic and advanced indexing.

The key is part of the op's template: ints, slices (with steps), None,
Ellipsis and tuples of these stay literals; tensors and arrays inside it
(a staged int64 scalar `i` in `x[i]`, an integer or boolean mask array) are
inputs. The shape rule follows NumPy: ints drop a dim, slices keep one (its
length when the bounds are known), None adds a 1, integer arrays broadcast
together and land where the first one was (or in front when they are not
adjacent), a boolean mask becomes one dim of unknown length.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.calls import Span, render
from runtime.ops.define import define
from runtime.ops.shapes import broadcast

__all__ = ["INDEX", "index_shape"]


def _index_rule(x: TensorType, key: Any) -> TensorType:
    return TensorType(x.dtype, index_shape(x.shape, key))


def _classify(item: Any) -> str:
    if item is None:
        return "none"
    if item is Ellipsis:
        return "ellipsis"
    if isinstance(item, slice):
        return "slice"
    if isinstance(item, TensorType):
        if item.dtype == np.bool_:
            return "bool"
        if not np.issubdtype(item.dtype, np.integer):
            raise IndexError(
                f"only integers, slices, None, Ellipsis and integer or boolean arrays are valid "
                f"indices; got a {item} tensor (cast it with .astype(np.int64))"
            )
        return "int" if item.shape == () else "array"
    if isinstance(item, (bool, np.bool_)):
        return "bool_scalar"
    if isinstance(item, (int, np.integer)):
        return "int"
    raise IndexError(f"{item!r} is not a valid index")


def _slice_length(item: slice, size: int | None) -> int | None:
    parts = (item.start, item.stop, item.step)
    if size is None or any(isinstance(p, TensorType) for p in parts):
        return None
    if item.step == 0:
        raise ValueError("slice step cannot be zero")
    return len(range(*item.indices(size)))


def _consumed(kind: str, item: Any) -> int:
    if kind in ("int", "slice"):
        return 1
    if kind == "array":
        return 1
    if kind == "bool":
        return len(item.shape) if item.shape is not None else 1
    return 0


def index_shape(shape: tuple | None, key: Any) -> tuple | None:
    """The shape of `x[key]` for `x` of `shape` (None entries unknown)."""
    items = key if isinstance(key, tuple) else (key,)
    kinds = [_classify(item) for item in items]
    if kinds.count("ellipsis") > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if shape is None or any(k == "bool" and i.shape is None for k, i in zip(kinds, items)):
        return None
    used = sum(_consumed(k, i) for k, i in zip(kinds, items))
    if used > len(shape):
        raise IndexError(f"too many indices: the tensor has rank {len(shape)} but {used} were indexed")
    advanced = any(k in _ADVANCED for k in kinds)
    # Advanced indices (ints count as such among them) stay in place only when nothing,
    # not even an empty Ellipsis or a None, separates them in the key as written.
    at_positions = [i for i, k in enumerate(kinds) if k in _ADVANCED or k == "int"]
    adjacent = not at_positions or at_positions[-1] - at_positions[0] + 1 == len(at_positions)
    if "ellipsis" in kinds:
        at = kinds.index("ellipsis")
        fill = len(shape) - used
        items = items[:at] + (slice(None),) * fill + items[at + 1:]
        kinds = kinds[:at] + ["slice"] * fill + kinds[at + 1:]
    else:
        items = items + (slice(None),) * (len(shape) - used)
        kinds = kinds + ["slice"] * (len(shape) - used)
    return _apply(shape, items, kinds, advanced, adjacent)


_ADVANCED = ("array", "bool", "bool_scalar")


def _apply(shape: tuple, items: tuple, kinds: list[str], advanced: bool, adjacent: bool) -> tuple:
    out: list[Any] = []
    adv_shapes: list[Any] = []
    adv_positions: list[int] = []
    dim = 0
    for item, kind in zip(items, kinds):
        if kind == "none":
            out.append(1)
        elif kind == "slice":
            out.append(_slice_length(item, shape[dim]))
            dim += 1
        elif kind == "int" and not advanced:
            _check_bound(item, shape[dim])
            dim += 1
        else:
            adv_positions.append(len(out))
            if kind == "int":
                _check_bound(item, shape[dim])
                adv_shapes.append(())
            elif kind == "array":
                adv_shapes.append(item.shape)
            elif kind == "bool_scalar":
                adv_shapes.append((1 if item else 0,))
            else:
                _check_mask(item, shape[dim:dim + len(item.shape)])
                adv_shapes.append((None,))
            dim += _consumed(kind, item)
    if not advanced:
        return tuple(out)
    block = broadcast(*adv_shapes, what="index arrays")
    assert block is not None
    first = adv_positions[0]
    if adjacent:
        return tuple(out[:first]) + block + tuple(out[first:])
    return block + tuple(out)


def _check_mask(mask: TensorType, dims: tuple) -> None:
    for m, d in zip(mask.shape, dims):
        if m is not None and d is not None and m != d:
            raise IndexError(f"boolean index of shape {mask.shape_str()} does not match the indexed dims {dims}")


def _check_bound(item: Any, size: int | None) -> None:
    if isinstance(item, (int, np.integer)) and size is not None and not -size <= item < size:
        raise IndexError(f"index {item} is out of bounds for an axis of size {size}")


def _render_key(item: Any, sources: list[str]) -> str:
    if isinstance(item, Span):
        start, stop, step = (("" if v is None else render(v, sources)) for v in (item.start, item.stop, item.step))
        return f"{start}:{stop}" + (f":{step}" if step else "")
    return render(item, sources)


def _emit(sources: Any, attrs: Any) -> str:
    """`x[i, 1:5:2, None, ...]`: the key printed the way it was written."""
    template = attrs.get("args")
    if template is None:
        return f"{sources[0]}[{sources[1]}]"
    base, key = template
    if isinstance(key, tuple):
        text = ", ".join(_render_key(k, sources) for k in key) if key else "()"
        text += "," if len(key) == 1 else ""
    else:
        text = _render_key(key, sources)
    return f"{render(base, sources)}[{text}]"


INDEX = define("index", operator.getitem, _index_rule, path="indexing", emit=_emit)
