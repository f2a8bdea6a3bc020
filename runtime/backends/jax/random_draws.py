"""`ag.random` draws on the XLA backend: the NumPy backend's own counter-based draw, run on the host.

A draw is a pure function of (key, draw number) (`runtime.ops.random`), so
calling that same function through `jax.pure_callback` gives every backend the
same numbers for the same seed, and each run and iteration new ones. Its
shape must be known before the graph runs, as XLA needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import _host
from runtime.ir.graph import Node
from runtime.ir.types import TensorType
from runtime.ops.registry import get_op

__all__ = ["RandomLowering"]


class RandomLowering:
    """The random ops of `Lowering` (it provides jnp and jax)."""

    def _host_draw(self, node: Node, values: list) -> Any:
        type_ = node.type
        if not isinstance(type_, TensorType) or not type_.is_fully_defined:
            raise staging_error_at(
                node.origin,
                f"this random draw has the shape {type_}, known only when the graph runs, and XLA needs "
                f"every shape before; draw with a fixed size=, or run this function on the NumPy backend "
                f"(jit_compile=False).",
            )
        import jax

        impl, attrs = get_op(node.op).impl, node.attrs

        def draw(*arrays: Any) -> np.ndarray:
            return np.asarray(impl(*[_host(a) for a in arrays], **attrs), dtype=type_.dtype)

        shape = jax.ShapeDtypeStruct(type_.shape, type_.dtype)
        return jax.pure_callback(draw, shape, *values)

    def _op_random_normal(self, node: Node, values: list, state: list) -> Any:
        return self._host_draw(node, values)

    def _op_random_uniform(self, node: Node, values: list, state: list) -> Any:
        return self._host_draw(node, values)

    def _op_random_integers(self, node: Node, values: list, state: list) -> Any:
        return self._host_draw(node, values)

    def _op_random_permutation(self, node: Node, values: list, state: list) -> Any:
        return self._host_draw(node, values)
