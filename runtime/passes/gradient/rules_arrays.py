"""Vector-Jacobian products of shape ops, indexing, joins, selection, sorting and TensorArrays.

Moving data around moves the gradient back: a reshape's gradient is the
gradient reshaped to the input (`reshape_like`), a transpose's is
transposed back, an index's is scattered into zeros (`IndexGrad`, which an
accumulator takes in place), a concatenate's is cut into the parts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from runtime.ir.graph import Node
from runtime.ops.arguments import bind_arguments
from runtime.ops.calls import Slot
from runtime.passes.gradient.rules_math import call_args

__all__ = ["ARRAY_RULES", "IndexGrad"]

Pairs = list[tuple[Node, Any]]


@dataclass(frozen=True)
class IndexGrad:
    """The gradient `g` of `x[key]` with respect to `x`, not yet scattered into zeros.

    The transform adds it into an existing gradient of `x` in place
    (`index_add`), so a loop that reads `x[i]` at every step accumulates its
    gradient in O(1) per step instead of building a zero array each time.
    """

    g: Node
    index: Node  # the forward "index" node

    def key(self) -> Any:
        template = self.index.attrs.get("args")
        return Slot(1) if template is None else template[1]


def _reshape(t, node: Node, g: Node) -> Pairs:
    x = node.inputs[0]
    return [(x, t.em.call("reshape_like", g, x))]


def _transpose(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    bound = bind_arguments(np.transpose, args, kwargs)
    x, axes = bound["a"], bound.get("axes")
    if axes is None:
        return [(x, t.em.call("transpose", g))]
    inverse = tuple(int(i) for i in np.argsort([a % len(axes) for a in axes]))
    return [(x, t.em.call("transpose", g, inverse))]


def _swapaxes(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    bound = bind_arguments(np.swapaxes, args, kwargs)
    return [(bound["a"], t.em.call("swapaxes", g, bound["axis1"], bound["axis2"]))]


def _matrix_transpose(t, node: Node, g: Node) -> Pairs:
    return [(node.inputs[0], t.em.call("swapaxes", g, -1, -2))]


def _flip(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    x = args[0]
    return [(x, t.em.call(node.op, g, *args[1:], **kwargs))]


def _roll(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    bound = bind_arguments(np.roll, args, kwargs)
    shift = bound["shift"]
    if isinstance(shift, Node):
        back = t.em.call("negative", shift)
    else:
        back = tuple(-s for s in shift) if isinstance(shift, tuple) else -shift
    return [(bound["a"], t.em.call("roll", g, back, axis=bound.get("axis")))]


def _broadcast_to(t, node: Node, g: Node) -> Pairs:
    x = node.inputs[0]
    return [(x, t.em.call("sum_to", g, x))]


def _sum_to(t, node: Node, g: Node) -> Pairs:
    """sum_to(h, like) sums h down to like's shape: its gradient broadcasts back up (second order)."""
    h = node.inputs[0]
    return [(h, t.em.node("broadcast_like", (g, h), {}))]


def _reduce_grad(t, node: Node, g: Node) -> Pairs:
    """reduce_grad of a sum or mean is linear in the incoming gradient: its own gradient is the
    reduction again (second order); other kinds are refused."""
    kind, axis, keepdims = node.attrs["kind"], node.attrs["axis"], node.attrs["keepdims"]
    if kind not in ("sum", "mean"):
        from runtime.passes.gradient.errors import not_differentiable

        raise not_differentiable(node)
    incoming = node.inputs[0]
    reduced = t.em.call(kind, g, axis=axis, keepdims=keepdims)
    return [(incoming, t.em.call("reshape_like", reduced, incoming))]


def _index(t, node: Node, g: Node) -> Pairs:
    return [(node.inputs[0], IndexGrad(g, node))]


def _take(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    bound = bind_arguments(np.take, args, kwargs)
    x, indices, axis = bound["a"], bound["indices"], bound.get("axis")
    if not isinstance(x, Node) or bound.get("mode") not in (None, "raise"):
        return []
    ind = indices if isinstance(indices, Node) else t.em.constant(indices)
    if axis is None:
        flat = t.em.call("ravel", x)
        scattered = t.em.node("index_grad", (g, flat, ind), {"key": Slot(1)})
        return [(x, t.em.call("reshape_like", scattered, x))]
    moved = t.em.call("moveaxis", x, axis, 0)
    g_moved = t.em.call("moveaxis", g, _moved_axes(ind, axis), _lead(ind))
    scattered = t.em.node("index_grad", (g_moved, moved, ind), {"key": Slot(1)})
    return [(x, t.em.call("moveaxis", scattered, 0, axis))]


def _moved_axes(ind: Node, axis: int) -> tuple:
    rank = ind.type.rank or 0
    return tuple(range(axis, axis + rank))


def _lead(ind: Node) -> tuple:
    return tuple(range(ind.type.rank or 0))


def _concatenate(mode: str):
    def rule(t, node: Node, g: Node) -> Pairs:
        args, kwargs = call_args(node)
        parts = tuple(args[0])
        axis = kwargs.get("axis", args[1] if len(args) > 1 else 0)
        if axis is None:
            from runtime.passes.gradient.errors import not_differentiable

            raise not_differentiable(node, "with axis=None")
        nodes = tuple(p if isinstance(p, Node) else t.em.constant(p) for p in parts)
        pairs = []
        for which, part in enumerate(parts):
            if isinstance(part, Node):
                attrs = {"axis": axis, "which": which, "mode": mode}
                pairs.append((part, t.em.node("concat_grad", (g, *nodes), attrs)))
        return pairs

    return rule


def _stack(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    parts = tuple(args[0])
    axis = kwargs.get("axis", args[1] if len(args) > 1 else 0)
    pairs = []
    for which, part in enumerate(parts):
        if isinstance(part, Node):
            pairs.append((part, t.em.call("sum_to", t.em.call("take", g, which, axis=axis), part)))
    return pairs


def _where(t, node: Node, g: Node) -> Pairs:
    args, _ = call_args(node)
    condition, a, b = args
    pairs = []
    if isinstance(a, Node):
        pairs.append((a, t.em.call("sum_to", t.em.call("where", condition, g, 0), a)))
    if isinstance(b, Node):
        pairs.append((b, t.em.call("sum_to", t.em.call("where", condition, 0, g), b)))
    return pairs


def _clip(t, node: Node, g: Node) -> Pairs:
    """clip(x, lo, hi) is minimum(maximum(x, lo), hi), as NumPy computes it (so also when lo > hi)."""
    args, kwargs = call_args(node)
    x = args[0]
    lo = args[1] if len(args) > 1 else kwargs.get("a_min", kwargs.get("min"))
    hi = args[2] if len(args) > 2 else kwargs.get("a_max", kwargs.get("max"))
    em = t.em
    pairs = []
    inner = x if lo is None else em.call("maximum", x, lo)
    g_inner = g
    if hi is not None:
        g_inner = em.call("where", em.call("less_equal", inner, hi), g, 0)
        if _float_node(hi):
            pairs.append((hi, em.call("sum_to", em.call("where", em.call("greater", inner, hi), g, 0), hi)))
    g_x = g_inner
    if lo is not None:
        g_x = em.call("where", em.call("greater_equal", x, lo), g_inner, 0)
        if _float_node(lo):
            pairs.append((lo, em.call("sum_to", em.call("where", em.call("less", x, lo), g_inner, 0), lo)))
    if _float_node(x):
        pairs.append((x, em.call("sum_to", g_x, x)))
    return pairs


def _float_node(value: Any) -> bool:
    return isinstance(value, Node) and value.type.dtype.kind in "fc"


def _sort(t, node: Node, g: Node) -> Pairs:
    args, kwargs = call_args(node)
    bound = bind_arguments(np.sort, args, kwargs)
    return [(bound["a"], t.em.node("sort_grad", (g, bound["a"]), {"axis": bound.get("axis", -1)}))]


def _identity(t, node: Node, g: Node) -> Pairs:
    return [(node.inputs[0], g)]


# -- TensorArrays: a handle's gradient is a list of element gradients -----------------
def _ta_write(t, node: Node, g: Node) -> Pairs:
    handle, index, value = node.inputs
    pairs = []
    if value.type.dtype.kind in "fc":
        pairs.append((value, t.em.cast_like(t.em.node("grad_list_read", (g, index, value), {}), value)))
    pairs.append((handle, t.em.node("grad_list_drop", (g, index), {})))
    return pairs


def _ta_read(t, node: Node, g: Node) -> Pairs:
    handle, index = node.inputs
    return [(handle, t.em.node("grad_list_put", (t.em.empty_list(handle), index, g), {}))]


def _ta_stack(t, node: Node, g: Node) -> Pairs:
    return [(node.inputs[0], t.em.node("grad_list_from", (g,), {}))]


def _ta_unstack(t, node: Node, g: Node) -> Pairs:
    value = node.inputs[0]
    if value.type.dtype.kind not in "fc":
        return []
    return [(value, t.em.node("grad_list_stack", (g, value), {}))]


ARRAY_RULES: dict[str, Callable] = {
    **{name: _reshape for name in ("reshape", "ravel", "squeeze", "expand_dims", "atleast_1d",
                                   "atleast_2d", "atleast_3d", "reshape_like")},
    "copy": _identity, "asarray": _identity, "positive": _identity, "real": _identity,
    "transpose": _transpose, "permute_dims": _transpose, "swapaxes": _swapaxes,
    "matrix_transpose": _matrix_transpose, "flip": _flip, "fliplr": _flip, "flipud": _flip,
    "roll": _roll, "broadcast_to": _broadcast_to, "sum_to": _sum_to, "reduce_grad": _reduce_grad, "index": _index,
    "take": _take, "concatenate": _concatenate("concatenate"), "hstack": _concatenate("hstack"),
    "vstack": _concatenate("vstack"), "stack": _stack, "where": _where, "clip": _clip,
    "sort": _sort, "ta_write": _ta_write, "ta_write_once": _ta_write, "ta_read": _ta_read, "ta_stack": _ta_stack,
    "ta_unstack": _ta_unstack,
}
