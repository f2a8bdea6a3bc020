"""TensorArray.scatter and TensorArray.split lowered onto the preallocated buffer.

scatter stores row k of the value at indices[k], one write after another as
on the NumPy backend: an index out of bounds raises (XLA would drop or clamp
it), and where an index repeats the last row written wins (XLA's scatter
leaves the winner unspecified, so every row a later one overwrites is
dropped before it). split needs lengths known while tracing and all equal:
the buffer holds one element shape, so pieces of different lengths are a
StagingError (the NumPy backend keeps them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import TensorArrayBuffer, _is_static, _shape
from runtime.ir.errors import InvalidArgumentError
from runtime.ir.graph import Node
from runtime.ops.state import ta_split

__all__ = ["TensorArrayPieceLowering"]


class TensorArrayPieceLowering:
    """ta_scatter and ta_split of `Lowering` (it provides jnp, check, conform and element_shape_error)."""

    def _op_ta_scatter(self, node: Node, values: list, state: list) -> Any:
        buffer, indices, value = values
        if not isinstance(buffer, TensorArrayBuffer) or buffer.items is None:
            raise staging_error_at(node.origin, "cannot tell this TensorArray's element shape while lowering it")
        jnp, size = self.jnp, buffer.size
        flat = jnp.asarray(indices).reshape(-1)
        count = flat.shape[0]
        rows_shape = _shape(value)
        if len(rows_shape) == 0 or rows_shape[0] != count:
            rows = "a scalar" if len(rows_shape) == 0 else f"{rows_shape[0]} rows"

            def mismatch() -> None:
                raise InvalidArgumentError(f"TensorArray.scatter: {count} indices but the value has {rows}")

            self.check(False, mismatch, node)
            return buffer
        element = tuple(buffer.items.shape[1:])
        rows = jnp.asarray(value).astype(buffer.items.dtype)
        if tuple(rows.shape[1:]) != element:
            try:
                rows = jnp.broadcast_to(rows, (count, *element))
            except ValueError:
                raise self.element_shape_error(node, tuple(rows.shape[1:]), element) from None
        inside = (flat >= 0) & (flat < size)

        def fail(chosen: Any) -> None:
            for i in np.asarray(chosen).reshape(-1):
                if not 0 <= int(i) < size:
                    raise InvalidArgumentError(
                        f"TensorArray index {int(i)} is out of bounds for size {size}; create it with "
                        f"dynamic_size=True to let it grow."
                    )

        if _is_static(indices):
            static = np.asarray(indices).reshape(-1)
            ok: Any = bool(np.all((static >= 0) & (static < size)))
        else:
            ok = jnp.all(inside)
        self.check(ok, fail, node, flat)
        if count == 0 or size == 0:
            return buffer
        # the last row written at an index wins: earlier rows at that index go out of bounds (dropped)
        later = np.triu(np.ones((count, count), bool), 1)
        overwritten = jnp.any((flat[:, None] == flat[None, :]) & later, axis=1)
        target = jnp.where(overwritten | ~inside, size, flat)
        items = buffer.items.at[target].set(rows, mode="drop")
        written = jnp.asarray(buffer.written).at[target].set(True, mode="drop")
        return TensorArrayBuffer(items, written, size)

    def _op_ta_split(self, node: Node, values: list, state: list) -> Any:
        value, lengths = values
        if not _is_static(lengths):
            raise staging_error_at(
                node.origin,
                "TensorArray.split with lengths known only at run time gives elements whose shapes XLA "
                "cannot know before the graph runs; give the lengths as Python ints (or constants), or "
                "run this function on the NumPy backend (jit_compile=False).",
            )
        lengths = np.asarray(lengths).reshape(-1)
        shape = _shape(value)
        if len(shape) == 0 or np.any(lengths < 0) or int(lengths.sum()) != shape[0]:
            # the NumPy backend's own error, raised while lowering: the call that traces fails with it
            ta_split(np.zeros(shape), lengths, np.float64)
        if len(set(lengths.tolist())) > 1:
            raise staging_error_at(
                node.origin,
                f"TensorArray.split into pieces of lengths {lengths.tolist()}: XLA keeps a TensorArray's "
                f"elements in one preallocated array, so they need one shape; split into equal lengths "
                f"(or write the pieces padded to one length), or run this function on the NumPy backend "
                f"(jit_compile=False).",
            )
        count = len(lengths)
        piece = int(lengths[0]) if count else 0
        items = self.jnp.asarray(value).astype(node.attrs["dtype"]).reshape((count, piece, *shape[1:]))
        return TensorArrayBuffer(items, np.ones((count,), bool), count)
