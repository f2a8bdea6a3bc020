"""Vector-Jacobian products of the gradient's own helper ops, for gradients of gradients.

Most helper ops are linear in the incoming gradient `g`, so their gradient
with respect to `g` is their transpose, often the forward op again: the
helper that scatters `x[key]`'s gradient into zeros (`index_grad`) has the
index itself as its transpose. The products' helpers are bilinear, so with
respect to the other operand they are the product's helper once more:

    ga = matmul_grad(g, a, b, which=0)   # = g @ b.T
    # its VJP (gg for ga):  g: gg @ b;   b: matmul_grad(g, gg, b, which=1)

Helpers whose derivative is not written here (the decompositions,
prod reductions, cumprod, item assignment with integer arrays and
TensorArray concat/split) stay refused by the transform, naming the line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.graph import Node
from runtime.ops.calls import Slot
from runtime.passes.gradient.build import like_handle
from runtime.passes.gradient.errors import not_differentiable

__all__ = ["SECOND_ORDER_RULES", "CONSTANT_HELPERS"]

Pairs = list[tuple[Node, Any]]

# helpers whose value does not depend on their inputs' values (only on shapes): no gradient
CONSTANT_HELPERS = frozenset({"fresh_zeros", "grad_list_new"})


def _float(node: Node) -> bool:
    return node.type.dtype.kind in "fc"


def _broadcast_like(t, node: Node, gg: Node) -> Pairs:
    g = node.inputs[0]
    return [(g, t.em.call("sum_to", gg, g))]


def _index_of(t, gg: Node, key: Any, key_inputs: tuple[Node, ...], like: Node) -> Node:
    """gg[key], where the key's Slots count (x, *key_inputs) and gg stands for x."""
    return t.em.node("index", (gg, *key_inputs), {"args": (Slot(0), key)}, type_=like.type)


def _index_grad(t, node: Node, gg: Node) -> Pairs:
    g, _, *key_inputs = node.inputs
    return [(g, _index_of(t, gg, node.attrs["key"], tuple(key_inputs), g))]


def _index_add(t, node: Node, gg: Node) -> Pairs:
    acc, g, _, *key_inputs = node.inputs
    return [(acc, gg), (g, _index_of(t, gg, node.attrs["key"], tuple(key_inputs), g))]


def _reduce_grad(t, node: Node, gg: Node) -> Pairs:
    """sum/mean: the reduction again; max/min: the tie-shared mask is constant almost everywhere."""
    kind, axis, keepdims = node.attrs["kind"], node.attrs["axis"], node.attrs["keepdims"]
    g, x, y = node.inputs
    em = t.em
    if kind in ("sum", "mean"):
        reduced = em.call(kind, gg, axis=axis, keepdims=keepdims)
        return [(g, em.call("reshape_like", reduced, g))]
    if kind in ("max", "min"):
        share = em.node("reduce_grad", (em.call("ones_like", g), x, y), dict(node.attrs), type_=x.type)
        return [(g, em.call("reshape_like", em.call("sum", em.call("multiply", gg, share), axis=axis,
                                                     keepdims=keepdims), g))]
    if kind in ("var", "std"):
        return _spread_grad(t, node, gg)
    raise not_differentiable(node)


def _spread_grad(t, node: Node, gg: Node) -> Pairs:
    """var: c * g * (x - mean x) with c = 2 / (count - ddof); std: the same over 2 * y."""
    g, x, y = node.inputs
    kind, axis, keepdims, ddof = (node.attrs[k] for k in ("kind", "axis", "keepdims", "ddof"))
    shape = x.type.shape
    if shape is None or None in shape:
        raise not_differentiable(node, "of an array whose shape is not known while tracing")
    axes = tuple(range(len(shape))) if axis is None else tuple(
        a % len(shape) for a in (axis if isinstance(axis, tuple) else (axis,)))
    count = int(np.prod([shape[a] for a in axes]))
    em = t.em
    ge, ye = (v if keepdims else em.call("expand_dims", v, axes) for v in (g, y))
    centred = em.call("subtract", x, em.call("mean", x, axis=axes, keepdims=True))
    scale: Any = 2.0 / (count - ddof)
    if kind == "std":  # 0 where y is 0, as the first gradient
        zero = em.call("equal", ye, 0)
        scale = em.call("where", zero, 0.0, em.call("divide", 1.0 / (count - ddof), em.call("where", zero, 1.0, ye)))

    def reduce(v: Node, like: Node) -> Node:
        return em.call("reshape_like", em.call("sum", v, axis=axes, keepdims=True), like)

    pairs = [(g, reduce(em.call("multiply", gg, em.call("multiply", centred, scale)), g))]
    spread = em.call("multiply", em.call("multiply", gg, ge), scale)
    pairs.append((x, em.call("subtract", spread, em.call("mean", spread, axis=axes, keepdims=True))))
    if kind == "std":  # d(1/y) = -1/y^2: scale / y
        per_y = em.call("multiply", em.call("multiply", spread, centred), em.call("divide", 1.0, em.call(
            "where", em.call("equal", ye, 0), 1.0, ye)))
        pairs.append((y, em.call("negative", reduce(per_y, y))))
    return pairs


def _bilinear(helper: str, forward: Callable):
    """A product helper `helper(g, *operands, which=w)`: the VJP of operand w of `forward(*operands)`."""

    def rule(t, node: Node, gg: Node) -> Pairs:
        g, *operands = node.inputs
        attrs = dict(node.attrs)
        which = attrs.pop("which")
        swapped = list(operands)
        swapped[which] = gg
        pairs = [(g, forward(t, swapped, attrs, g))]
        for other, operand in enumerate(operands):
            if other != which and _float(operand):
                pairs.append((operand, t.em.node(helper, (g, *swapped), {**attrs, "which": other},
                                                 type_=operand.type)))
        return pairs

    return rule


def _matmul(t, operands: list, attrs: dict, like: Node) -> Node:
    return t.em.call("sum_to", t.em.call("matmul", *operands), like)


def _dot(t, operands: list, attrs: dict, like: Node) -> Node:
    return t.em.call("sum_to", t.em.call("dot", *operands), like)


def _einsum(t, operands: list, attrs: dict, like: Node) -> Node:
    return t.em.call("sum_to", t.em.call("einsum", attrs["subscripts"], *operands), like)


def _concat_grad(t, node: Node, gg: Node) -> Pairs:
    g, *parts = node.inputs
    which, mode, axis = node.attrs["which"], node.attrs["mode"], node.attrs["axis"]
    em = t.em
    pieces = [gg if k == which else em.call("zeros_like", p) for k, p in enumerate(parts)]
    joined = em.call(mode, pieces) if mode != "concatenate" else em.call("concatenate", pieces, axis=axis)
    return [(g, em.call("reshape_like", joined, g))]


def _sort_grad(t, node: Node, gg: Node) -> Pairs:
    g, x = node.inputs
    axis = node.attrs["axis"]
    em = t.em
    order = em.call("argsort", x, axis=axis, kind="stable")
    if axis is None:
        return [(g, em.call("reshape_like", em.call("take", em.call("ravel", gg), order), g))]
    return [(g, em.call("take_along_axis", gg, order, axis=axis))]


def _cumsum_grad(t, node: Node, gg: Node) -> Pairs:
    g = node.inputs[0]
    return [(g, t.em.call("reshape_like", t.em.call("cumsum", gg, axis=node.attrs["axis"]), g))]


def _inv_grad(t, node: Node, gg: Node) -> Pairs:
    """inv_grad(g, y) = -(y^T g y^T): linear in g, and in y twice."""
    g, y = node.inputs
    em = t.em

    def mt(v: Node) -> Node:
        return em.call("swapaxes", v, -1, -2)

    def mm(a: Node, b: Node) -> Node:
        return em.call("matmul", a, b)

    pairs = [(g, em.call("negative", mm(mm(y, gg), y)))]
    pairs.append((y, em.call("negative", em.call("add", mm(mm(g, mt(y)), mt(gg)), mm(mm(mt(gg), mt(y)), g)))))
    return pairs


def _det_grad(t, node: Node, gg: Node) -> Pairs:
    """det_grad(g, a, y) = (g * y) inv(a)^T: linear in g and y, and through inv(a) in a."""
    g, a, y = node.inputs
    em = t.em
    inv = em.call("linalg_inv", a)
    inv_t = em.call("swapaxes", inv, -1, -2)
    dc = em.call("sum", em.call("multiply", gg, inv_t), axis=(-2, -1))
    scale = em.call("expand_dims", em.call("multiply", g, y), (-2, -1))
    g_inv = em.call("swapaxes", em.call("multiply", scale, gg), -1, -2)  # the gradient of inv(a)
    g_a = em.call("negative", em.call("matmul", em.call("matmul", inv_t, g_inv), inv_t))
    return [(g, em.call("multiply", dc, y)), (y, em.call("multiply", dc, g)), (a, g_a)]


def _solve_grad(t, node: Node, gg: Node) -> Pairs:
    """solve_grad(g, a, x): B = solve(a^T, g); which=1 gives B, which=0 gives -B x^T (columns
    for vectors). Linear in g and x, and through solve(a^T, .) in a."""
    g, a, x = node.inputs
    if a.type.rank is None or x.type.rank is None:
        raise not_differentiable(node, "of arrays of unknown rank")
    em = t.em
    vector = x.type.rank == a.type.rank - 1

    def col(v: Node) -> Node:
        return em.call("expand_dims", v, -1) if vector else v

    def uncol(v: Node) -> Node:
        return em.call("take", v, 0, axis=-1) if vector else v

    def mt(v: Node) -> Node:
        return em.call("swapaxes", v, -1, -2)

    def mm(u: Node, v: Node) -> Node:
        return em.call("matmul", u, v)

    b = em.call("linalg_solve", mt(a), col(g))
    if node.attrs["which"] == 1:
        u = em.call("linalg_solve", a, col(gg))
        return [(g, uncol(u)), (a, em.call("negative", mm(b, mt(u))))]
    g_b = em.call("negative", mm(gg, col(x)))
    g_g = em.call("linalg_solve", a, g_b)
    g_x = em.call("negative", mm(mt(gg), b))
    return [(g, uncol(g_g)), (x, uncol(g_x)), (a, em.call("negative", mm(b, mt(g_g))))]


def _fft_grad(t, node: Node, gg: Node) -> Pairs:
    """fft_grad applies a transform's adjoint; the adjoint of that is the transform itself."""
    g = node.inputs[0]
    attrs = dict(node.attrs)
    fn = attrs.pop("fn")
    return [(g, t.em.call(f"fft_{fn}", gg, **attrs))]


def _norm_grad(t, node: Node, gg: Node) -> Pairs:
    """norm_grad(g, x, y) = g * x / y (0 where y == 0), with g and y expanded over the reduced axes."""
    g, x, y = node.inputs
    axis, keepdims = node.attrs["axis"], node.attrs["keepdims"]
    if x.type.rank is None:
        raise not_differentiable(node, "of an array of unknown rank")
    axes = tuple(range(x.type.rank)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    em = t.em
    ge, ye = (v if keepdims else em.call("expand_dims", v, axes) for v in (g, y))
    zero = em.call("equal", ye, 0)
    inv_y = em.call("where", zero, 0.0, em.call("divide", 1.0, em.call("where", zero, 1.0, ye)))

    def reduce(v: Node, like: Node) -> Node:
        return em.call("reshape_like", em.call("sum", v, axis=axes, keepdims=True), like)

    pairs = [(g, reduce(em.call("multiply", gg, em.call("multiply", x, inv_y)), g))]
    pairs.append((x, em.call("multiply", gg, em.call("multiply", ge, inv_y))))
    scaled = em.call("multiply", em.call("multiply", gg, ge), em.call("multiply", x, em.call("multiply", inv_y, inv_y)))
    pairs.append((y, em.call("negative", reduce(scaled, y))))
    return pairs


# -- TensorArray gradients (lists of element gradients): linear maps between lists and arrays ----------
def _list_node(t, op: str, inputs: tuple, like: Node | None = None) -> Node:
    return t.em.node(op, inputs, {}, type_=like.type if like is not None else like_handle())


def _list_drop(t, node: Node, gg: Node) -> Pairs:
    return [(node.inputs[0], _list_node(t, "grad_list_drop", (gg, node.inputs[1])))]


def _list_read(t, node: Node, gg: Node) -> Pairs:
    g, index, _ = node.inputs
    return [(g, _list_node(t, "grad_list_put", (t.em.empty_list(), index, gg)))]


def _list_put(t, node: Node, gg: Node) -> Pairs:
    g, index, value = node.inputs
    return [(g, gg), (value, _list_node(t, "grad_list_read", (gg, index, value), value))]


def _list_from(t, node: Node, gg: Node) -> Pairs:
    g = node.inputs[0]
    return [(g, _list_node(t, "grad_list_stack", (gg, g), g))]


def _list_stack(t, node: Node, gg: Node) -> Pairs:
    return [(node.inputs[0], _list_node(t, "grad_list_from", (gg,)))]


def _list_add(t, node: Node, gg: Node) -> Pairs:
    return [(node.inputs[0], gg), (node.inputs[1], gg)]


def _list_put_rows(t, node: Node, gg: Node) -> Pairs:
    g, indices, rows = node.inputs
    return [(g, gg), (rows, _list_node(t, "grad_list_take_rows", (gg, indices, rows), rows))]


def _list_take_rows(t, node: Node, gg: Node) -> Pairs:
    g, indices, _ = node.inputs
    return [(g, _list_node(t, "grad_list_put_rows", (t.em.empty_list(), indices, gg)))]


def _list_drop_rows(t, node: Node, gg: Node) -> Pairs:
    return [(node.inputs[0], _list_node(t, "grad_list_drop_rows", (gg, node.inputs[1])))]


SECOND_ORDER_RULES: dict[str, Callable] = {
    "grad_list_drop": _list_drop, "grad_list_read": _list_read, "grad_list_put": _list_put,
    "grad_list_from": _list_from, "grad_list_stack": _list_stack, "grad_list_add": _list_add,
    "grad_list_put_rows": _list_put_rows, "grad_list_take_rows": _list_take_rows,
    "grad_list_drop_rows": _list_drop_rows,
    "broadcast_like": _broadcast_like, "index_grad": _index_grad, "index_add": _index_add,
    "reduce_grad": _reduce_grad, "matmul_grad": _bilinear("matmul_grad", _matmul),
    "dot_grad": _bilinear("dot_grad", _dot), "einsum_grad": _bilinear("einsum_grad", _einsum),
    "concat_grad": _concat_grad, "sort_grad": _sort_grad, "cumsum_grad": _cumsum_grad, "inv_grad": _inv_grad,
    "det_grad": _det_grad, "solve_grad": _solve_grad, "fft_grad": _fft_grad, "norm_grad": _norm_grad,
}
