"""Vector-Jacobian products of item assignment, TensorArray gather/scatter/concat/split,
random permutations, and the parts of complex numbers.

`x[key] = value` (the "setitem" op) is a functional update: the gradient of
`x` is the incoming gradient with the assigned region zeroed (what was there
is gone), and the value's is the region's gradient summed back to the
value's shape:

    y = setitem(x, key, v)   ->   g_x = setitem(g, key, 0);   g_v = sum_to(g[key], v)

A key with integer arrays may name an element twice; then only the value
NumPy wrote last counts, which `setitem_value_grad` finds out at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.graph import Node
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot
from runtime.passes.gradient.build import like_handle
from runtime.passes.gradient.rules_math import call_args

__all__ = ["UPDATE_RULES"]

Pairs = list[tuple[Node, Any]]


def _float(value: Any) -> bool:
    return isinstance(value, Node) and value.type.dtype.kind in "fc"


def _has_int_array(key: Any) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    for part in parts:
        if isinstance(part, Node) and part.type.dtype.kind in "iu" and part.type.rank != 0:
            return True
        if isinstance(part, (list, np.ndarray)):
            return True
    return False


def _setitem(t, node: Node, g: Node) -> Pairs:
    (x, key, value), _ = call_args(node)
    em = t.em
    pairs = []
    if _float(x):
        pairs.append((x, em.call("setitem", g, key, 0)))
    if _float(value):
        if _has_int_array(key):
            template = node.attrs.get("args") or tuple(Slot(i) for i in range(len(node.inputs)))
            slots = {id(n): i for i, n in enumerate(node.inputs)}
            attrs = {"key": template[1], "x_at": template[0].index, "value_at": slots[id(value)]}
            pairs.append((value, em.node("setitem_value_grad", (g, *node.inputs), attrs, type_=value.type)))
        else:
            pairs.append((value, em.call("sum_to", em.call("index", g, key), value)))
    return pairs


def _ta_gather(t, node: Node, g: Node) -> Pairs:
    handle, indices = node.inputs
    return [(handle, t.em.node("grad_list_put_rows", (t.em.empty_list(handle), indices, g), {}, like_handle()))]


def _ta_scatter(t, node: Node, g: Node) -> Pairs:
    handle, indices, value = node.inputs
    pairs = [(handle, t.em.node("grad_list_drop_rows", (g, indices), {}, like_handle()))]
    if value.type.dtype.kind in "fc":
        taken = t.em.node("grad_list_take_rows", (g, indices, value), {}, value.type)
        pairs.append((value, t.em.cast_like(taken, value)))
    return pairs


def _ta_concat(t, node: Node, g: Node) -> Pairs:
    handle = node.inputs[0]
    return [(handle, t.em.node("grad_list_split_like", (g, handle), {}, like_handle()))]


def _ta_split(t, node: Node, g: Node) -> Pairs:
    value, lengths = node.inputs
    if value.type.dtype.kind not in "fc":
        return []
    return [(value, t.em.node("grad_list_concat", (g, value, lengths), {}, value.type))]


def _permutation(t, node: Node, g: Node) -> Pairs:
    """permutation(x) is x[perm] for the permutation of len(x) the same draw makes: g goes back through it."""
    key, count, x = node.inputs[:3]
    if x.type.rank is None:
        from runtime.passes.gradient.errors import not_differentiable

        raise not_differentiable(node, "of an array of unknown rank")
    if x.type.rank == 0 or x.type.dtype.kind not in "fc":
        return []
    em = t.em
    rows = x
    for _ in range(x.type.rank - 1):
        rows = em.call("take", rows, 0, axis=-1)  # the first axis alone: its size is the length
    perm = em.node("random_permutation", (key, count, em.call("size", rows)), {"length": x.type.shape[0]},
                   type_=TensorType(np.dtype(np.int64), (x.type.shape[0],)))
    return [(x, em.call("take", g, em.call("argsort", perm), axis=0))]


def _imag(t, node: Node, g: Node) -> Pairs:
    x = node.inputs[0]
    if x.type.dtype.kind != "c":
        return []
    return [(x, t.em.call("multiply", g, 1j))]


def _conjugate(t, node: Node, g: Node) -> Pairs:
    args, _ = call_args(node)
    x = args[0]
    if not _float(x):
        return []
    return [(x, t.em.call("conjugate", g) if x.type.dtype.kind == "c" else g)]


def _absolute(t, node: Node, g: Node) -> Pairs:
    """|z| of a complex z: g * z / |z| (0 at 0), with ordinary ops, so that a gradient of it differentiates
    (np.sign of a complex value is z / |z|, which is not piecewise constant). Real x: g * sign(x)."""
    args, _ = call_args(node)
    x = args[0]
    if not _float(x):
        return []
    em = t.em
    if x.type.dtype.kind != "c":
        return [(x, em.call("sum_to", em.call("multiply", g, em.call("sign", x)), x))]
    zero = em.call("equal", node, 0)
    unit = em.call("where", zero, 0, em.call("divide", x, em.call("where", zero, 1, node)))
    return [(x, em.call("sum_to", em.call("multiply", g, unit), x))]


def _sign(t, node: Node, g: Node) -> Pairs:
    """np.sign is piecewise constant for real values; for complex ones it is z / |z|."""
    x = call_args(node)[0][0]
    if _float(x) and x.type.dtype.kind == "c":
        from runtime.passes.gradient.errors import not_differentiable

        raise not_differentiable(node, "of a complex value (it is z / |z| there: write that instead)")
    return []


UPDATE_RULES: dict[str, Callable] = {
    "absolute": _absolute, "abs": _absolute, "sign": _sign,
    "setitem": _setitem, "ta_gather": _ta_gather, "ta_scatter": _ta_scatter, "ta_scatter_once": _ta_scatter,
    "ta_concat": _ta_concat, "ta_split": _ta_split, "random_permutation": _permutation,
    "imag": _imag, "conjugate": _conjugate, "conj": _conjugate,
}
