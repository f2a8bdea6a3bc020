"""Gradients of TensorArray gather/scatter/split/concat and of item assignment under XLA, and
the linear-algebra and FFT gradient rules.

TensorArray gradients are dense arrays here (`gradient_lists`), so the row ops are indexed
updates of them; split and concat need equal lengths on XLA, so their gradients are reshapes.
The linear-algebra and FFT rules (`eigh_grad`, `svd_grad`, ...) run their NumPy function on the
host (`jax.pure_callback`): the same numbers as the NumPy backend, at the price of a trip to
the host; their shapes are the graph's, known before the graph runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import _NOT_FOLDED, TensorArrayBuffer, _dtype, _shape
from runtime.ir.errors import InvalidArgumentError
from runtime.ir.graph import Node
from runtime.ops.registry import get_op
from runtime.passes.gradient.grad_ops import fill_key

__all__ = ["GradientUpdateLowering", "HOST_GRADIENTS"]

HOST_GRADIENTS = ("eigh_grad", "svd_grad", "qr_grad", "cholesky_grad", "pinv_grad", "lstsq_grad", "fft_grad")


class GradientUpdateLowering:
    """Row updates of gradient lists, setitem's value gradient and host-run gradient rules
    (`Lowering` provides jax, jnp, lax, check, conform, _fold and _op_ta_scatter)."""

    def _op_grad_list_put_rows(self, node: Node, values: list, state: list) -> Any:
        rows, indices, value = values
        rows = self.jnp.asarray(rows)
        flat = self.jnp.asarray(indices).reshape(-1)
        value = self.jnp.asarray(value).astype(rows.dtype).reshape((flat.shape[0], *rows.shape[1:]))
        return rows.at[flat].add(value)  # repeated indices add up, as the lists' rows do

    def _op_grad_list_take_rows(self, node: Node, values: list, state: list) -> Any:
        rows, indices, like = values
        flat = self.jnp.asarray(indices).reshape(-1)
        taken = self.jnp.take(self.jnp.asarray(rows), flat, axis=0, mode="fill", fill_value=0)
        return self.conform(taken.astype(_dtype(like)).reshape(_shape(like)), node.type)

    def _op_grad_list_drop_rows(self, node: Node, values: list, state: list) -> Any:
        rows, indices = values
        rows = self.jnp.asarray(rows)
        return rows.at[self.jnp.asarray(indices).reshape(-1)].set(0, mode="drop")

    def _op_grad_list_split_like(self, node: Node, values: list, state: list) -> Any:
        g, items = values
        if not isinstance(items, TensorArrayBuffer) or items.items is None:
            raise staging_error_at(node.origin, "cannot tell this TensorArray's element shape while lowering it")
        return self.jnp.asarray(g).reshape(_shape(items.items))  # equal pieces (split on XLA needs them)

    def _op_grad_list_concat(self, node: Node, values: list, state: list) -> Any:
        rows, like, lengths = values
        return self.conform(self.jnp.asarray(rows).astype(_dtype(like)).reshape(_shape(like)), node.type)

    def _op_ta_scatter_once(self, node: Node, values: list, state: list) -> Any:
        """A scatter in a loop being differentiated: no element may be written twice."""
        buffer, indices = values[0], values[1]
        if isinstance(buffer, TensorArrayBuffer) and buffer.items is not None and buffer.size:
            jnp, size = self.jnp, buffer.size
            flat = jnp.asarray(indices).reshape(-1)
            fresh = ~jnp.asarray(buffer.written)[jnp.clip(flat, 0, size - 1)] | (flat < 0) | (flat >= size)

            def fail(chosen: Any, written: Any) -> None:
                for i in np.asarray(chosen).reshape(-1):
                    if 0 <= int(i) < size and bool(np.asarray(written)[int(i)]):
                        raise InvalidArgumentError(
                            f"TensorArray element {int(i)} is written twice in a loop that is differentiated; "
                            f"its gradient needs each element written once (as in TensorFlow). Write each "
                            f"iteration to its own indices."
                        )

            self.check(jnp.all(fresh), fail, node, flat, jnp.asarray(buffer.written))
        return self._op_ta_scatter(node, values, state)

    def _op_setitem_value_grad(self, node: Node, values: list, state: list) -> Any:
        """The gradient of `value` in `x[key] = value`: `g` where value's elements were kept."""
        folded = self._fold(node, values)
        if folded is not _NOT_FOLDED:
            return folded
        jnp = self.jnp
        g, *forward = values
        attrs = node.attrs
        x, value = forward[attrs["x_at"]], forward[attrs["value_at"]]
        index = fill_key(attrs["key"], forward)
        region_shape = jnp.zeros(_shape(x), np.int8)[index].shape
        ids = jnp.arange(int(np.prod(region_shape)), dtype=np.int64).reshape(region_shape)
        canvas = jnp.full(_shape(x), -1, np.int64).at[index].set(ids)  # the same scatter as the forward
        won = canvas[index] == ids
        kept = jnp.where(won, jnp.asarray(g)[index], 0)
        return self.conform(self._sum_to_like(kept, value), node.type)

    # -- rules computed on the host ------------------------------------------------
    def _host_gradient(self, node: Node, values: list) -> Any:
        type_ = node.type
        if not type_.is_fully_defined:
            raise staging_error_at(node.origin, f"XLA cannot tell the shape of {node.op}'s result here")
        impl, attrs = get_op(node.op).impl, node.attrs

        def run(*arrays: Any) -> np.ndarray:
            return np.asarray(impl(*arrays, **attrs), dtype=type_.dtype).reshape(type_.shape)

        result = self.jax.ShapeDtypeStruct(type_.shape, type_.dtype)
        return self.jax.pure_callback(run, result, *values)


def _host_method(name: str) -> Any:
    def lower(self: Any, node: Node, values: list, state: list) -> Any:
        folded = self._fold(node, values)
        return folded if folded is not _NOT_FOLDED else self._host_gradient(node, values)

    lower.__name__ = f"_op_{name}"
    return lower


for _name in HOST_GRADIENTS:
    setattr(GradientUpdateLowering, f"_op_{_name}", _host_method(_name))
