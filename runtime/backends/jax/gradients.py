"""The ops only gradient graphs use (`runtime.passes.gradient.grad_ops`), lowered to jax.numpy.

Each computes what its NumPy function computes, for the static shapes XLA
knows while lowering: summing a broadcast gradient back to an input's shape,
scattering an index's gradient (`x.at[key].add(g)`, which sums repeated
indices as `np.add.at` does), reductions' and products' vector-Jacobian
products, the pieces of a join, sort and scan gradients, and the linear
algebra rules. An op whose inputs are all known while lowering is computed
right away by its NumPy function (`_fold`), as every op is.

The TensorArray gradients (lists of element gradients) and the stacks of a
differentiated while loop are in `gradient_lists`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from runtime.backends.jax.values import _NOT_FOLDED, _dtype, _is_static, _shape
from runtime.ir.graph import Node
from runtime.passes.gradient.grad_ops import fill_key

__all__ = ["GradientLowering"]


def _folded(method: Any) -> Any:
    """`method` for inputs that are not all known while lowering; known ones are folded by NumPy."""

    def lower(self: Any, node: Node, values: list, state: list) -> Any:
        folded = self._fold(node, values)
        if folded is not _NOT_FOLDED:
            return folded
        return self.conform(method(self, *values, **node.attrs), node.type)

    lower.__name__ = method.__name__
    lower.__doc__ = method.__doc__
    return lower


def _axes_of(axis: Any, ndim: int) -> tuple[int, ...]:
    return tuple(range(ndim)) if axis is None else tuple(normalize_axis_tuple(axis, ndim))


class GradientLowering:
    """Gradient-only ops of `Lowering` (it provides jnp, lax, conform and _fold)."""

    # -- broadcasting and shapes ------------------------------------------------
    def _sum_to_like(self, g: Any, like: Any) -> Any:
        """`g` summed over the dimensions broadcasting added to `like`'s shape, in its dtype."""
        jnp = self.jnp
        g = jnp.asarray(g)
        shape = _shape(like)
        if tuple(g.shape) != shape:
            lead = g.ndim - len(shape)
            axes = tuple(range(lead)) + tuple(
                lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1
            )
            if axes:
                g = jnp.sum(g, axis=axes, keepdims=True)
            g = g.reshape(shape)
        return g.astype(_dtype(like))

    @_folded
    def _op_sum_to(self, g: Any, like: Any) -> Any:
        return self._sum_to_like(g, like)

    @_folded
    def _op_reshape_like(self, g: Any, like: Any) -> Any:
        return self.jnp.reshape(g, _shape(like)).astype(_dtype(like))

    @_folded
    def _op_broadcast_like(self, g: Any, like: Any) -> Any:
        return self.jnp.broadcast_to(self.jnp.asarray(g, _dtype(like)), _shape(like))

    # -- indexing ---------------------------------------------------------------
    @_folded
    def _op_index_grad(self, g: Any, *forward: Any, key: Any) -> Any:
        """`g` scattered into zeros shaped as `x` (the forward index checked the bounds)."""
        x = forward[0]
        zeros = self.jnp.zeros(_shape(x), _dtype(x))
        return zeros.at[fill_key(key, forward)].add(self.jnp.asarray(g).astype(zeros.dtype))

    def _op_index_add(self, node: Node, values: list, state: list) -> Any:
        """`acc` with `g` added at the key (NumPy, folding it, adds in place: into a copy)."""
        acc, g, *forward = values
        if all(_is_static(v) for v in values):
            folded = self._fold(node, [np.array(acc), g, *forward])
            if folded is not _NOT_FOLDED:
                return folded
        acc = self.jnp.asarray(acc)
        added = acc.at[fill_key(node.attrs["key"], forward)].add(self.jnp.asarray(g).astype(acc.dtype))
        return self.conform(added, node.type)

    # -- reductions -------------------------------------------------------------
    @_folded
    def _op_reduce_grad(self, g: Any, x: Any, y: Any, kind: str, axis: Any, keepdims: bool, ddof: int = 0) -> Any:
        jnp = self.jnp
        x = jnp.asarray(x)
        if axis is None and kind in ("sum", "mean"):  # the usual loss: every element gets the same
            value = g if kind == "sum" else g / max(x.size, 1)
            return jnp.broadcast_to(jnp.asarray(value).astype(x.dtype), x.shape)
        axes = _axes_of(axis, x.ndim)
        if not keepdims:
            g = jnp.expand_dims(g, axes)
            y = jnp.expand_dims(y, axes)
        count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        if kind == "sum":
            out = jnp.broadcast_to(g, x.shape)
        elif kind == "mean":
            out = jnp.broadcast_to(g / count, x.shape)
        elif kind == "prod":
            out = g * self._prod_others(x, axes)
        elif kind in ("max", "min"):
            ties = (x == y)
            out = g * ties / jnp.sum(ties, axis=axes, keepdims=True)
        elif kind in ("var", "std"):
            centred = x - jnp.mean(x, axis=axes, keepdims=True)
            out = g * 2.0 * centred / (count - ddof)
            if kind == "std":
                out = out / (2.0 * jnp.where(y == 0, 1, y))
        else:
            raise AssertionError(f"no reduction gradient for {kind!r}")
        return jnp.asarray(out).astype(x.dtype)

    def _prod_others(self, x: Any, axes: tuple) -> Any:
        """The product over `axes` of every element but the one in place (exact with zeros)."""
        jnp = self.jnp
        front = tuple(range(len(axes)))
        moved = jnp.moveaxis(x, axes, front)
        lead = moved.shape[: len(axes)]
        flat = moved.reshape((-1, *moved.shape[len(axes):]))
        ones = jnp.ones_like(flat[:1])
        before = jnp.concatenate([ones, jnp.cumprod(flat, axis=0)[:-1]])
        after = jnp.flip(jnp.concatenate([ones, jnp.cumprod(jnp.flip(flat, 0), axis=0)[:-1]]), 0)
        return jnp.moveaxis((before * after).reshape((*lead, *moved.shape[len(axes):])), front, axes)

    # -- products -----------------------------------------------------------------
    @_folded
    def _op_matmul_grad(self, g: Any, a: Any, b: Any, which: int) -> Any:
        jnp = self.jnp
        a, b, g = jnp.asarray(a), jnp.asarray(b), jnp.asarray(g)
        if a.ndim == 1 and b.ndim == 1:
            return (g * (b if which == 0 else a)).astype((a if which == 0 else b).dtype)
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = jnp.expand_dims(g, -2) if a.ndim == 1 else g
        g2 = jnp.expand_dims(g2, -1) if b.ndim == 1 else g2
        if which == 0:
            out = g2 @ jnp.swapaxes(b2, -1, -2)
            return self._sum_to_like(out[..., 0, :] if a.ndim == 1 else out, a)
        out = jnp.swapaxes(a2, -1, -2) @ g2
        return self._sum_to_like(out[..., :, 0] if b.ndim == 1 else out, b)

    @_folded
    def _op_dot_grad(self, g: Any, a: Any, b: Any, which: int) -> Any:
        jnp = self.jnp
        a, b, g = jnp.asarray(a), jnp.asarray(b), jnp.asarray(g)
        if a.ndim == 0 or b.ndim == 0:
            mine, other = (a, b) if which == 0 else (b, a)
            return self._sum_to_like(jnp.sum(g * other) if mine.ndim == 0 else g * other, mine)
        if b.ndim == 1:
            if which == 0:
                return (g[..., None] * b).astype(a.dtype)
            return jnp.tensordot(a, g, axes=(tuple(range(a.ndim - 1)), tuple(range(g.ndim)))).astype(b.dtype)
        lead = a.ndim - 1
        b_rest = [i for i in range(b.ndim) if i != b.ndim - 2]
        if which == 0:
            return jnp.tensordot(g, b, axes=(tuple(range(lead, g.ndim)), tuple(b_rest))).astype(a.dtype)
        out = jnp.tensordot(a, g, axes=(tuple(range(lead)), tuple(range(lead))))
        return jnp.moveaxis(out, 0, b.ndim - 2).astype(b.dtype)

    @_folded
    def _op_einsum_grad(self, g: Any, *operands: Any, subscripts: str, which: int) -> Any:
        jnp = self.jnp
        inputs, output = subscripts.replace(" ", "").split("->")
        parts = inputs.split(",")
        target = parts[which]
        known = set(output).union(*(set(p) for i, p in enumerate(parts) if i != which))
        present = "".join(ch for ch in target if ch in known)
        others = [p for i, p in enumerate(parts) if i != which]
        values = [o for i, o in enumerate(operands) if i != which]
        out = jnp.einsum(",".join([output, *others]) + "->" + present, g, *values)
        x = operands[which]
        shape = _shape(x)
        if present != target:  # letters only in this operand were summed: broadcast back
            out = jnp.broadcast_to(out.reshape([shape[target.index(ch)] if ch in present else 1 for ch in target]),
                                   shape)
        return jnp.asarray(out).astype(_dtype(x))

    # -- joining, sorting, scans ------------------------------------------------------
    @_folded
    def _op_concat_grad(self, g: Any, *parts: Any, axis: int, which: int, mode: str) -> Any:
        shapes = [_shape(p) for p in parts]
        if mode == "vstack":
            shapes = [s if len(s) >= 2 else (1, *s)[-2:] if s else (1, 1) for s in shapes]
        elif mode == "hstack":
            axis = 0 if len(shapes[0]) == 1 else 1
        sizes = [s[axis] for s in shapes]
        start = sum(sizes[:which])
        piece = self.lax.slice_in_dim(self.jnp.asarray(g), start, start + sizes[which], axis=axis)
        return piece.reshape(_shape(parts[which])).astype(_dtype(parts[which]))

    @_folded
    def _op_sort_grad(self, g: Any, x: Any, axis: Any) -> Any:
        """`g` put back where each sorted element came from: read through the inverse permutation."""
        jnp = self.jnp
        x, g = jnp.asarray(x), jnp.asarray(g)
        if axis is None:
            order = jnp.argsort(x.reshape(-1), stable=True)
            return g.reshape(-1)[jnp.argsort(order)].reshape(x.shape).astype(x.dtype)
        order = jnp.argsort(x, axis=axis, stable=True)
        return jnp.take_along_axis(g, jnp.argsort(order, axis=axis), axis=axis).astype(x.dtype)

    @_folded
    def _op_cumsum_grad(self, g: Any, x: Any, axis: Any) -> Any:
        jnp = self.jnp
        shape, dtype = _shape(x), _dtype(x)
        if axis is None:
            return jnp.flip(jnp.cumsum(jnp.flip(jnp.ravel(g)))).reshape(shape).astype(dtype)
        return jnp.flip(jnp.cumsum(jnp.flip(g, axis), axis=axis), axis).astype(dtype)

    @_folded
    def _op_cumprod_grad(self, g: Any, x: Any, axis: Any) -> Any:
        """sum over j >= i of g_j * prod_{k <= j, k != i} x_k, for every i at once (exact with zeros)."""
        jnp = self.jnp
        x = jnp.asarray(x)
        shape = x.shape
        g = jnp.asarray(g)
        if axis is None:
            x, g, axis = x.reshape(-1), g.reshape(-1), 0
        xm, gm = jnp.moveaxis(x, axis, -1), jnp.moveaxis(g, axis, -1)
        n = xm.shape[-1]
        eye = np.eye(n, dtype=bool)
        others = jnp.where(eye, jnp.ones((), xm.dtype), xm[..., None, :])  # [..., i, k]: x_k, 1 at k == i
        partial = jnp.cumprod(others, axis=-1)
        upper = np.triu(np.ones((n, n), dtype=bool))  # j >= i
        out = jnp.sum(jnp.where(upper, gm[..., None, :] * partial, 0), axis=-1)
        return jnp.moveaxis(out, -1, axis).reshape(shape).astype(x.dtype)

    # -- linear algebra -------------------------------------------------------------------
    def _mT(self, a: Any) -> Any:
        return self.jnp.swapaxes(a, -1, -2)

    @_folded
    def _op_inv_grad(self, g: Any, y: Any) -> Any:
        return -(self._mT(y) @ g @ self._mT(y))

    @_folded
    def _op_solve_grad(self, g: Any, a: Any, x: Any, which: int) -> Any:
        jnp = self.jnp
        a, x, g = jnp.asarray(a), jnp.asarray(x), jnp.asarray(g)
        vector = x.ndim == a.ndim - 1
        gb = jnp.linalg.solve(self._mT(a), g[..., None] if vector else g)
        if which == 1:
            return gb[..., 0] if vector else gb
        return -(gb @ self._mT(x[..., None] if vector else x))

    @_folded
    def _op_det_grad(self, g: Any, a: Any, y: Any) -> Any:
        jnp = self.jnp
        a = jnp.asarray(a)
        return (jnp.asarray(g * y)[..., None, None] * self._mT(jnp.linalg.inv(a))).astype(a.dtype)

    @_folded
    def _op_norm_grad(self, g: Any, x: Any, y: Any, axis: Any, keepdims: bool) -> Any:
        jnp = self.jnp
        x = jnp.asarray(x)
        axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
        if not keepdims:
            g = jnp.expand_dims(g, axes)
            y = jnp.expand_dims(y, axes)
        safe = jnp.where(y == 0, 1, y)
        return jnp.asarray(g * jnp.where(y == 0, 0, x / safe)).astype(x.dtype)
