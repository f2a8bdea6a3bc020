"""`ag.random` draws on the XLA backend: `jax.random`, keyed by the generator's key and draw number.

A draw is a pure function of (key, draw number) (`runtime.ops.random`). Here
the 128-bit key and the draw number are folded into a threefry key, so the
numbers are made on the device, without a trip to the host: the same seed
gives the same numbers at every call on this backend, and every run and
iteration new ones -- but not the NumPy backend's numbers (NumPy's Philox
and JAX's threefry are different generators; docs/differences.md). Its shape
must be known before the graph runs, as XLA needs.
"""

from __future__ import annotations

from typing import Any

from runtime.backends.jax.refusals import staging_error_at
from runtime.ir.graph import Node
from runtime.ir.types import TensorType

__all__ = ["RandomLowering"]


class RandomLowering:
    """The random ops of `Lowering` (it provides jnp and jax)."""

    def _draw_key(self, node: Node, key: Any, count: Any) -> Any:
        """A threefry key for draw number `count` of the generator with the 128-bit `key`."""
        type_ = node.type
        if not isinstance(type_, TensorType) or not type_.is_fully_defined:
            raise staging_error_at(
                node.origin,
                f"this random draw has the shape {type_}, known only when the graph runs, and XLA needs "
                f"every shape before; draw with a fixed size=, or run this function on the NumPy backend "
                f"(jit_compile=False).",
            )
        jax, jnp = self.jax, self.jnp
        words = jnp.asarray(key).astype(jnp.uint64).reshape(-1)
        halves = [part for word in (words[0], words[1], jnp.asarray(count).astype(jnp.uint64))
                  for part in ((word >> 32).astype(jnp.uint32), (word & 0xFFFFFFFF).astype(jnp.uint32))]
        draw_key = jax.random.wrap_key_data(jnp.stack(halves[:2]), impl="threefry2x32")
        for half in halves[2:]:
            draw_key = jax.random.fold_in(draw_key, half)
        return draw_key

    def _op_random_normal(self, node: Node, values: list, state: list) -> Any:
        type_ = node.type
        return self.jax.random.normal(self._draw_key(node, *values[:2]), type_.shape, type_.dtype)

    def _op_random_uniform(self, node: Node, values: list, state: list) -> Any:
        type_ = node.type
        return self.jax.random.uniform(self._draw_key(node, *values[:2]), type_.shape, type_.dtype)

    def _op_random_integers(self, node: Node, values: list, state: list) -> Any:
        type_, jnp = node.type, self.jnp
        low, high = (jnp.broadcast_to(jnp.asarray(v), type_.shape) for v in values[2:4])
        return self.jax.random.randint(self._draw_key(node, *values[:2]), type_.shape, low, high, type_.dtype)

    def _op_random_permutation(self, node: Node, values: list, state: list) -> Any:
        draw_key, x = self._draw_key(node, *values[:2]), values[2]
        order = self.jax.random.permutation(draw_key, node.type.shape[0])
        if self.jnp.ndim(x) == 0:  # permutation(n): its length is the result's (static) shape
            return order.astype(node.type.dtype)
        return self.jnp.asarray(x)[order]  # x's rows in the order permutation(len(x)) draws: its gradient's rule relies on it
