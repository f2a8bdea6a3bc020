"""Ops that only gradient graphs use, each a NumPy function typed like one of its inputs.

Most vector-Jacobian products are written with the ordinary ops (a `tanh`'s
is `g * (1 - y * y)`); these are the ones that would take many ordinary ops
or shapes known only at run time: summing a broadcast gradient back to its
input's shape, scattering an index's gradient, the products' transposes,
reductions' ties, TensorArray gradients (lists of element gradients, with
None for "zero"), and the linear-algebra rules.

    sum_to(g, like)      # g summed over broadcast dimensions, shaped and typed as `like`
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Span, Weak
from runtime.ops.registry import OPS, Op, register

__all__ = ["GRAD_OPS", "fill_key"]

HANDLE = TensorType(np.dtype(object), ())


def _like(position: int):
    def infer(types: Sequence[TensorType], attrs: Any) -> TensorType:
        return types[position]

    return infer


def _handle(types: Sequence[TensorType], attrs: Any) -> TensorType:
    return HANDLE


def fill_key(item: Any, values: Sequence[Any]) -> Any:
    """An index template with its Slots and Weaks resolved against `values`."""
    if isinstance(item, Slot):
        return values[item.index]
    if isinstance(item, Weak):
        return item.value
    if isinstance(item, tuple):
        return tuple(fill_key(v, values) for v in item)
    if isinstance(item, Span):
        return slice(fill_key(item.start, values), fill_key(item.stop, values), fill_key(item.step, values))
    return item


# -- broadcasting and shapes -----------------------------------------------------
def sum_to(g: Any, like: Any) -> np.ndarray:
    """`g` summed over the dimensions that broadcasting added to `like`'s shape."""
    g = np.asarray(g)
    like = np.asarray(like)
    if g.dtype.kind == "c" and like.dtype.kind != "c":
        g = g.real  # a real input's gradient is the real part
    if g.shape != like.shape:
        lead = g.ndim - like.ndim
        axes = tuple(range(lead)) + tuple(
            lead + i for i, d in enumerate(like.shape) if d == 1 and g.shape[lead + i] != 1
        )
        g = g.sum(axis=axes, keepdims=True) if axes else g
        g = g.reshape(like.shape)
    return g.astype(like.dtype, copy=False)


def broadcast_like(g: Any, like: Any) -> np.ndarray:
    """`g` broadcast to `like`'s shape, in `like`'s dtype (the gradient of sum_to)."""
    like = np.asarray(like)
    return np.broadcast_to(np.asarray(g, dtype=like.dtype), like.shape)


def reshape_like(g: Any, like: Any) -> np.ndarray:
    return np.reshape(g, np.shape(like)).astype(np.asarray(like).dtype, copy=False)


def index_grad(g: Any, *forward: Any, key: Any) -> np.ndarray:
    """The gradient of `x[key]` with respect to `x`: `g` scattered (and summed) into zeros."""
    x = forward[0]
    out = np.zeros(np.shape(x), np.asarray(x).dtype)
    np.add.at(out, fill_key(key, forward), g)
    return out


def index_add(acc: np.ndarray, g: Any, *forward: Any, key: Any) -> np.ndarray:
    """`acc` with `g` added at `key`, in place (the compiler passes a copy when `acc` is shared)."""
    np.add.at(acc, fill_key(key, forward), g)
    return acc


def reduce_grad(g: Any, x: Any, y: Any, kind: str, axis: Any, keepdims: bool, ddof: int = 0) -> np.ndarray:
    """The gradient of a reduction of `x` to `y` over `axis`."""
    x = np.asarray(x)
    if axis is None and kind in ("sum", "mean"):  # the usual loss: every element gets the same
        return np.full(x.shape, g if kind == "sum" else g / max(x.size, 1), dtype=x.dtype)
    axes = tuple(range(x.ndim)) if axis is None else tuple(normalize_axis_tuple(axis, x.ndim))
    if not keepdims:
        g = np.expand_dims(g, axes)
        y = np.expand_dims(y, axes)
    count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    if kind == "sum":
        out = np.broadcast_to(g, x.shape)
    elif kind == "mean":
        out = np.broadcast_to(g / count, x.shape)
    elif kind == "prod":
        out = g * _prod_others(x, axes)
    elif kind in ("max", "min"):
        ties = (x == y)
        out = g * ties / ties.sum(axis=axes, keepdims=True)
    elif kind in ("var", "std"):
        centred = x - x.mean(axis=axes, keepdims=True)
        out = g * 2.0 * centred / (count - ddof)
        if kind == "std":
            out = out / (2.0 * np.where(y == 0, 1, y))
    else:
        raise AssertionError(f"no reduction gradient for {kind!r}")
    return np.asarray(out, dtype=x.dtype)


def _prod_others(x: np.ndarray, axes: tuple) -> np.ndarray:
    """The product over `axes` of every element but the one in place (exact with zeros)."""
    moved = np.moveaxis(x, axes, tuple(range(len(axes))))
    lead = moved.shape[: len(axes)]
    flat = moved.reshape((-1, *moved.shape[len(axes):]))
    before = np.concatenate([np.ones_like(flat[:1]), np.cumprod(flat, axis=0)[:-1]])
    after = np.flip(np.concatenate([np.ones_like(flat[:1]), np.cumprod(np.flip(flat, 0), axis=0)[:-1]]), 0)
    return np.moveaxis((before * after).reshape((*lead, *moved.shape[len(axes):])), tuple(range(len(axes))), axes)


# -- products --------------------------------------------------------------------
def matmul_grad(g: Any, a: Any, b: Any, which: int) -> np.ndarray:
    """The gradient of `a @ b` with respect to `a` (which=0) or `b` (which=1)."""
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 1 and b.ndim == 1:
        return (g * (b if which == 0 else a)).astype((a if which == 0 else b).dtype, copy=False)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = g
    if a.ndim == 1:
        g2 = np.expand_dims(g2, -2)
    if b.ndim == 1:
        g2 = np.expand_dims(g2, -1)
    if which == 0:
        out = g2 @ np.swapaxes(b2, -1, -2)
        out = out[..., 0, :] if a.ndim == 1 else out
        return sum_to(out, a)
    out = np.swapaxes(a2, -1, -2) @ g2
    out = out[..., :, 0] if b.ndim == 1 else out
    return sum_to(out, b)


def dot_grad(g: Any, a: Any, b: Any, which: int) -> np.ndarray:
    """The gradient of np.dot(a, b): sums over a's last axis and b's second-to-last."""
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if a.ndim == 0 or b.ndim == 0:
        other = b if which == 0 else a
        return sum_to(np.sum(g * other) if (a if which == 0 else b).ndim == 0 else g * other,
                      a if which == 0 else b)
    if b.ndim == 1:
        if which == 0:
            return np.multiply.outer(g, b).astype(a.dtype, copy=False)
        return np.tensordot(a, g, axes=(tuple(range(a.ndim - 1)), tuple(range(g.ndim)))).astype(b.dtype)
    # g has a's leading axes, then b's axes but the contracted one
    lead = a.ndim - 1
    b_rest = [i for i in range(b.ndim) if i != b.ndim - 2]
    if which == 0:
        out = np.tensordot(g, b, axes=(tuple(range(lead, g.ndim)), tuple(b_rest)))
        return out.astype(a.dtype, copy=False)
    out = np.tensordot(a, g, axes=(tuple(range(lead)), tuple(range(lead))))  # (k, *b_rest)
    return np.moveaxis(out, 0, b.ndim - 2).astype(b.dtype, copy=False)


def einsum_grad(g: Any, *operands: Any, subscripts: str, which: int) -> np.ndarray:
    """The gradient of an explicit einsum with respect to operand `which`."""
    inputs, output = subscripts.replace(" ", "").split("->")
    parts = inputs.split(",")
    target = parts[which]
    known = set(output).union(*(set(p) for i, p in enumerate(parts) if i != which))
    present = "".join(ch for ch in target if ch in known)
    others = [p for i, p in enumerate(parts) if i != which]
    values = [o for i, o in enumerate(operands) if i != which]
    spec = ",".join([output, *others]) + "->" + present
    out = np.einsum(spec, g, *values)
    x = np.asarray(operands[which])
    if present != target:  # letters only in this operand were summed: broadcast back
        shape = [x.shape[target.index(ch)] if ch in present else 1 for ch in target]
        out = np.broadcast_to(out.reshape(shape), x.shape)
    return np.asarray(out, dtype=x.dtype)


# -- joining, sorting, scans -------------------------------------------------------
def concat_grad(g: Any, *parts: Any, axis: int, which: int, mode: str) -> np.ndarray:
    """The piece of `g` that came from part `which` of concatenate / hstack / vstack."""
    shaped = [np.asarray(p) for p in parts]
    if mode == "vstack":
        shaped = [np.atleast_2d(p) for p in shaped]
    elif mode == "hstack":
        axis = 0 if shaped[0].ndim == 1 else 1
    sizes = [p.shape[axis] for p in shaped]
    start = sum(sizes[:which])
    piece = np.take(g, np.arange(start, start + sizes[which]), axis=axis)
    return piece.reshape(np.shape(parts[which])).astype(np.asarray(parts[which]).dtype, copy=False)


def sort_grad(g: Any, x: Any, axis: Any) -> np.ndarray:
    x = np.asarray(x)
    if axis is None:
        order = np.argsort(x, axis=None, kind="stable")
        out = np.zeros(x.size, x.dtype)
        out[order] = g
        return out.reshape(x.shape)
    order = np.argsort(x, axis=axis, kind="stable")
    out = np.zeros_like(x)
    np.put_along_axis(out, order, g, axis=axis)
    return out


def cumsum_grad(g: Any, x: Any, axis: Any) -> np.ndarray:
    x = np.asarray(x)
    if axis is None:
        return np.flip(np.cumsum(np.flip(np.ravel(g)))).reshape(x.shape).astype(x.dtype, copy=False)
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis).astype(x.dtype, copy=False)


def cumprod_grad(g: Any, x: Any, axis: Any) -> np.ndarray:
    """Exact also where x holds zeros: sum over j >= i of g_j * prod_{k <= j, k != i} x_k."""
    x = np.asarray(x)
    shape = x.shape
    if axis is None:
        x, g, axis = np.ravel(x), np.ravel(g), 0
    xm = np.moveaxis(x, axis, -1)
    gm = np.moveaxis(np.asarray(g), axis, -1)
    n = xm.shape[-1]
    out = np.zeros_like(xm)
    for i in range(n):
        others = xm.copy()
        others[..., i] = 1
        partial = np.cumprod(others, axis=-1)
        out[..., i] = np.sum(gm[..., i:] * partial[..., i:], axis=-1)
    return np.moveaxis(out, -1, axis).reshape(shape)


# -- linear algebra ----------------------------------------------------------------
def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def inv_grad(g: Any, y: Any) -> np.ndarray:
    return -(_mT(y) @ g @ _mT(y))


def solve_grad(g: Any, a: Any, x: Any, which: int) -> np.ndarray:
    a, x, g = np.asarray(a), np.asarray(x), np.asarray(g)
    vector = x.ndim == a.ndim - 1
    gb = np.linalg.solve(_mT(a), g[..., None] if vector else g)
    if which == 1:
        return gb[..., 0] if vector else gb
    xm = x[..., None] if vector else x
    return -(gb @ _mT(xm))


def det_grad(g: Any, a: Any, y: Any) -> np.ndarray:
    a = np.asarray(a)
    return (np.asarray(g * y)[..., None, None] * _mT(np.linalg.inv(a))).astype(a.dtype, copy=False)


def norm_grad(g: Any, x: Any, y: Any, axis: Any, keepdims: bool) -> np.ndarray:
    """The 2-norm / Frobenius norm: x / norm (zero where the norm is zero)."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    if not keepdims:
        g = np.expand_dims(g, axes)
        y = np.expand_dims(y, axes)
    safe = np.where(y == 0, 1, y)
    return np.asarray(g * np.where(y == 0, 0, x / safe), dtype=x.dtype)


# -- TensorArray gradients: lists of element gradients (None: zero) ----------------
def grad_list_new(*handle: Any) -> list:
    """An empty gradient list; `handle`, the TensorArray it is the gradient of, sizes it on XLA."""
    return []


def grad_list_add(a: list, b: list) -> list:
    size = max(len(a), len(b))
    out = []
    for i in range(size):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        out.append(y if x is None else x if y is None else x + y)
    return out


def grad_list_read(g: list, index: Any, like: Any) -> np.ndarray:
    i = int(index)
    value = g[i] if 0 <= i < len(g) else None
    return np.zeros_like(like) if value is None else value


def grad_list_drop(g: list, index: Any) -> list:
    i = int(index)
    if not 0 <= i < len(g) or g[i] is None:
        return g
    out = list(g)
    out[i] = None
    return out


def grad_list_put(g: list, index: Any, value: Any) -> list:
    i = int(index)
    out = list(g) + [None] * max(0, i + 1 - len(g))
    out[i] = value if out[i] is None else out[i] + value
    return out


def grad_list_from(g: Any) -> list:
    return list(np.asarray(g))


def grad_list_stack(g: list, like: Any) -> np.ndarray:
    like = np.asarray(like)
    out = np.zeros_like(like)
    for i, value in enumerate(g[: len(like)]):
        if value is not None:
            out[i] = value
    return out


def _register(name: str, fn: Any, infer: Any, inplace: bool = False) -> Op:
    if name in OPS:
        return OPS[name]
    return register(Op(name, infer=infer, impl=fn, inplace=inplace, numpy=fn, path=f"gradient.{fn.__name__}"))


GRAD_OPS = {
    "sum_to": _register("sum_to", sum_to, _like(1)),
    "reshape_like": _register("reshape_like", reshape_like, _like(1)),
    "broadcast_like": _register("broadcast_like", broadcast_like, _like(1)),
    "index_grad": _register("index_grad", index_grad, _like(1)),
    "index_add": _register("index_add", index_add, _like(0), inplace=True),
    "reduce_grad": _register("reduce_grad", reduce_grad, _like(1)),
    "matmul_grad": _register("matmul_grad", matmul_grad,
                             lambda t, a: t[1 + a["which"]]),
    "dot_grad": _register("dot_grad", dot_grad, lambda t, a: t[1 + a["which"]]),
    "einsum_grad": _register("einsum_grad", einsum_grad, lambda t, a: t[1 + a["which"]]),
    "concat_grad": _register("concat_grad", concat_grad, lambda t, a: t[1 + a["which"]]),
    "sort_grad": _register("sort_grad", sort_grad, _like(1)),
    "cumsum_grad": _register("cumsum_grad", cumsum_grad, _like(1)),
    "cumprod_grad": _register("cumprod_grad", cumprod_grad, _like(1)),
    "inv_grad": _register("inv_grad", inv_grad, _like(1)),
    "solve_grad": _register("solve_grad", solve_grad, lambda t, a: t[1] if a["which"] == 0 else
                            TensorType(t[1].dtype, None if t[2].shape is None else t[2].shape)),
    "det_grad": _register("det_grad", det_grad, _like(1)),
    "norm_grad": _register("norm_grad", norm_grad, _like(1)),
    "grad_list_new": _register("grad_list_new", grad_list_new, _handle),
    "grad_list_add": _register("grad_list_add", grad_list_add, _handle),
    "grad_list_read": _register("grad_list_read", grad_list_read, _like(2)),
    "grad_list_drop": _register("grad_list_drop", grad_list_drop, _handle),
    "grad_list_put": _register("grad_list_put", grad_list_put, _handle),
    "grad_list_from": _register("grad_list_from", grad_list_from, _handle),
    "grad_list_stack": _register("grad_list_stack", grad_list_stack, _like(1)),
}


def fresh_zeros(like: Any) -> Any:
    """A new zero array (or empty gradient list) that an accumulator may change in place."""
    if isinstance(like, list) or (isinstance(like, np.ndarray) and like.dtype == object and like.ndim == 0):
        return []
    return np.zeros_like(like)


GRAD_OPS["fresh_zeros"] = OPS.get("fresh_zeros") or register(Op(
    "fresh_zeros", infer=_like(0), impl=fresh_zeros, stateful=True, numpy=fresh_zeros, path="gradient.fresh_zeros",
))


def ta_write_once(items: list, index: Any, value: Any, dynamic: bool, dtype: np.dtype) -> list:
    """A TensorArray write inside a loop being differentiated: each element is written once."""
    i = int(index)
    if 0 <= i < len(items) and items[i] is not None:
        from runtime.ir.errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"TensorArray element {i} is written twice in a loop that is differentiated; its gradient "
            f"needs each element written once (as in TensorFlow). Write each iteration to its own index."
        )
    return OPS["ta_write"].impl(items, index, value, dynamic=dynamic, dtype=dtype)


GRAD_OPS["ta_write_once"] = OPS.get("ta_write_once") or register(Op(
    "ta_write_once", infer=_handle, impl=ta_write_once, inplace=True, numpy=ta_write_once,
    path="gradient.ta_write_once",
))
