"""`x[key]` and `x[key] = value` lowered with the NumPy backend's errors: XLA clamps an
index out of bounds, so integer indices get a run-time check (spared where a loop
counter's range is known), and what has a data-dependent shape (a boolean mask, a
slice with tensor bounds) is refused. An update is `x.at[key].set(value)`, and a
boolean mask of `x`'s shape given one value is `where(mask, value, x)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import _NOT_FOLDED, _dtype, _is_static
from runtime.ir.graph import Node
from runtime.ops.calls import Slot, resolve_call

__all__ = ["IndexLowering"]


class IndexLowering:
    """The index op of `Lowering` (it provides jnp, ranges, check, conform and _fold)."""

    def _op_index(self, node: Node, values: list, state: list) -> Any:
        folded = self._fold(node, values)
        if folded is not _NOT_FOLDED:
            return folded
        base, key = resolve_call(values, node.attrs)[0]
        items, empty = self._check_index(node, base, key if isinstance(key, tuple) else (key,))
        base = self.jnp.asarray(base)
        if empty:
            # an index into an empty axis always fails its check, which raises where the graph
            # runs it; a zero-filled axis of length 1 gives the result its shape until then
            shape = list(base.shape)
            for axis in empty:
                shape[axis] = 1
            base = self.jnp.zeros(shape, base.dtype)
        return self.conform(base[items if isinstance(key, tuple) else items[0]], node.type)

    def _op_setitem(self, node: Node, values: list, state: list) -> Any:
        """`x[key] = value` as a new array, the value cast to `x`'s dtype as NumPy's assignment casts."""
        base, key, value = resolve_call(values, node.attrs)[0]
        jnp = self.jnp
        base = jnp.asarray(base)
        value = jnp.asarray(value).astype(base.dtype)
        if _dtype(key) == np.bool_ and np.ndim(key) > 0 and np.shape(key) == base.shape and value.ndim == 0:
            return self.conform(jnp.where(key, value, base), node.type)
        items, empty = self._check_index(node, base, key if isinstance(key, tuple) else (key,))
        if empty:  # an index into an empty axis: its check raises where the graph runs
            return self.conform(base, node.type)
        return self.conform(base.at[items if isinstance(key, tuple) else items[0]].set(value), node.type)

    def _check_index(self, node: Node, base: Any, items: tuple) -> tuple[tuple, list[int]]:
        """Integer indices in bounds, checked where the graph runs (XLA would clamp them); a
        boolean mask refused. Returns the key, out-of-bounds constants replaced by 0 once
        their failing check is in place, and the empty axes indexed."""
        rank = len(base.shape)
        consumed = sum(
            (len(i.shape) if hasattr(i, "dtype") and i.dtype == np.bool_ else 1)
            for i in items if i is not None and i is not Ellipsis
        )
        axis = 0
        template = node.attrs.get("args", (Slot(0), Slot(1)))[1]
        slots = template if isinstance(template, tuple) else (template,)
        items = list(items)
        empty: list[int] = []
        for position, item in enumerate(items):
            if item is None:
                continue
            if item is Ellipsis:
                axis += rank - consumed
                continue
            if isinstance(item, slice):
                if not all(p is None or isinstance(p, (int, np.integer)) for p in (item.start, item.stop, item.step)):
                    raise staging_error_at(
                        node.origin,
                        "a slice whose bounds are tensors has a length known only at run time, which XLA "
                        "cannot compile; slice with Python ints, or take a fixed number of elements with "
                        "np.take(x, start + np.arange(n), axis=...); or run on the NumPy backend "
                        "(jit_compile=False).",
                    )
                axis += 1
                continue
            dtype = _dtype(item)
            if dtype == np.bool_ and np.ndim(item) > 0:
                raise staging_error_at(
                    node.origin,
                    "indexing with a boolean mask gives a result whose shape depends on the data, which "
                    "XLA cannot compile; use np.where(mask, x, fill) to keep the shape, or run on the "
                    "NumPy backend (jit_compile=False).",
                )
            size = base.shape[axis]
            slot = slots[position] if position < len(slots) else None
            known = self.ranges.get(node.inputs[slot.index]) if isinstance(slot, Slot) else None
            if known is not None and -size <= known[0] and known[1] < size:
                if size == 0:  # a loop that never runs: its body still needs shapes
                    empty.append(axis)
                axis += 1
                continue
            if _is_static(item):
                index = np.asarray(item)
                ok = bool(np.all((index >= -size) & (index < size)))
            else:
                ok = self.jnp.all((item >= -size) & (item < size))

            def fail(index: Any, _axis: int = axis, _size: int = size) -> None:
                index = np.asarray(index)
                bad = index[(index < -_size) | (index >= _size)] if index.ndim else index
                first = int(np.asarray(bad).ravel()[0])
                raise IndexError(f"index {first} is out of bounds for axis {_axis} with size {_size}")

            self.check(ok, fail, node, item)
            if size == 0:
                empty.append(axis)
            if _is_static(item) and not ok:
                items[position] = np.zeros_like(np.asarray(item))
            axis += 1
        return tuple(items), empty
