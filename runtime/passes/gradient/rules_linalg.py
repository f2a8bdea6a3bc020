"""Vector-Jacobian products of the np.linalg decompositions and of slogdet, pinv, matrix_power.

A decomposition with several results is one node per result (`index`), and
a gradient is linear in the results' gradients, so each result's node gets
its own rule and the contributions add up. Where a result is not unique
(the extra columns of `svd(..., full_matrices=True)` or of a complete QR of
a tall matrix) or the formula needs what NumPy does not promise (a wide QR,
complex matrices), differentiating is a StagingError naming the line:

    w, v = np.linalg.eigh(a)          # eigh_grad(g_w, a, index=0) + eigh_grad(g_v, a, index=1)
    sign, logdet = np.linalg.slogdet(a)  # logdet: g * inv(a).T, with ordinary ops
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.graph import Node
from runtime.ops.arguments import bind_arguments
from runtime.passes.gradient.errors import not_differentiable
from runtime.passes.gradient.rules_math import call_args

__all__ = ["LINALG_RULES"]

Pairs = list[tuple[Node, Any]]


def _real_matrix(node: Node, a: Any) -> Node:
    if not isinstance(a, Node) or a.type.dtype.kind != "f":
        raise not_differentiable(node, "of a complex matrix (real matrices differentiate)")
    return a


def _bound(node: Node, name: str) -> dict:
    args, kwargs = call_args(node)
    kwargs.pop("index", None)
    return bind_arguments(getattr(np.linalg, name), args, kwargs)


def _index(node: Node) -> int | None:
    """Which result of a decomposition `node` is (None: its only one)."""
    index = call_args(node)[1].get("index")
    return None if index is None else int(index)


def _helper(t, helper: str, g: Node, inputs: tuple, attrs: dict, like: Node) -> Node:
    return t.em.node(helper, (g, *inputs), attrs, type_=like.type)


def _eigh(t, node: Node, g: Node) -> Pairs:
    bound = _bound(node, "eigh")
    a = _real_matrix(node, bound["a"])
    attrs = {"index": _index(node), "UPLO": bound.get("UPLO", "L")}
    return [(a, _helper(t, "eigh_grad", g, (a,), attrs, a))]


def _eigvalsh(t, node: Node, g: Node) -> Pairs:
    bound = _bound(node, "eigvalsh")
    a = _real_matrix(node, bound["a"])
    return [(a, _helper(t, "eigh_grad", g, (a,), {"index": 0, "UPLO": bound.get("UPLO", "L")}, a))]


def _svd(t, node: Node, g: Node) -> Pairs:
    bound = _bound(node, "svd")
    a = _real_matrix(node, bound["a"])
    index = _index(node)
    if bound.get("hermitian"):
        raise not_differentiable(node, "with hermitian=True (call it without: the same result for a symmetric matrix)")
    full = bound.get("full_matrices", True)
    shape = a.type.shape
    if index in (0, 2) and full and (shape is None or None in shape[-2:] or shape[-1] != shape[-2]):
        raise not_differentiable(
            node, "with full_matrices=True on a matrix that is not square: the extra singular vectors are not "
            "unique, so they have no gradient. Pass full_matrices=False",
        )
    attrs = {"index": index, "full_matrices": False}
    return [(a, _helper(t, "svd_grad", g, (a,), attrs, a))]


def _qr(t, node: Node, g: Node) -> Pairs:
    bound = _bound(node, "qr")
    a = _real_matrix(node, bound["a"])
    mode = bound.get("mode", "reduced")
    shape = a.type.shape
    m, n = (None, None) if shape is None else shape[-2:]
    if m is None or n is None or m < n or (mode == "complete" and m != n):
        raise not_differentiable(
            node, "of a matrix with fewer rows than columns, or of unknown shape, or a complete QR of a tall "
            "matrix (its extra columns are not unique); a reduced QR of a tall or square matrix differentiates",
        )
    index = _index(node)
    attrs = {"index": 1 if index is None else index, "mode": "reduced"}
    return [(a, _helper(t, "qr_grad", g, (a,), attrs, a))]


def _cholesky(t, node: Node, g: Node) -> Pairs:
    bound = _bound(node, "cholesky")
    a = _real_matrix(node, bound["a"])
    return [(a, _helper(t, "cholesky_grad", g, (node,), {"upper": bool(bound.get("upper", False))}, a))]


def _pinv(t, node: Node, g: Node) -> Pairs:
    bound = _bound(node, "pinv")
    a = _real_matrix(node, bound["a"])
    if bound.get("hermitian"):
        raise not_differentiable(node, "with hermitian=True (call it without: the same result for a symmetric matrix)")
    return [(a, _helper(t, "pinv_grad", g, (a, node), {}, a))]


def _lstsq(t, node: Node, g: Node) -> Pairs:
    bound = _bound(node, "lstsq")
    a, b = bound["a"], bound["b"]
    index = _index(node)
    if index == 2:  # the rank: an integer
        return []
    an = a if isinstance(a, Node) else t.em.constant(a)
    bn = b if isinstance(b, Node) else t.em.constant(b)
    pairs = []
    for which, x in enumerate((a, b)):
        if isinstance(x, Node) and x.type.dtype.kind in "fc":
            _real_matrix(node, x)
            attrs = {"index": index, "which": which, "rcond": bound.get("rcond")}
            pairs.append((x, t.em.node("lstsq_grad", (g, an, bn), attrs, type_=x.type)))
    return pairs


def _slogdet(t, node: Node, g: Node) -> Pairs:
    """d log|det a| = tr(inv(a) da): the gradient is g * inv(a).T (the sign has none)."""
    if _index(node) != 1:
        return []
    a = _bound(node, "slogdet")["a"]
    a = _real_matrix(node, a)
    em = t.em
    scale = em.call("expand_dims", g, (-2, -1))
    return [(a, em.call("multiply", scale, em.call("swapaxes", em.call("linalg_inv", a), -1, -2)))]


def _matrix_power(t, node: Node, g: Node) -> Pairs:
    """d a^n = sum_k a^k da a^(n-1-k); a negative power differentiates through inv(a)^|n|."""
    bound = _bound(node, "matrix_power")
    a, n = bound["a"], int(bound["n"])
    a = _real_matrix(node, a)
    em = t.em
    if n == 0:
        return []
    base = a if n > 0 else em.call("linalg_inv", a)
    base_t = em.call("swapaxes", base, -1, -2)
    total = None
    for k in range(abs(n)):
        left = em.call("linalg_matrix_power", base_t, k)
        right = em.call("linalg_matrix_power", base_t, abs(n) - 1 - k)
        total = em.add(total, em.call("matmul", em.call("matmul", left, g), right))
    if n < 0:  # d inv(a) = -inv(a) da inv(a)
        total = em.call("negative", em.call("matmul", em.call("matmul", base_t, total), base_t))
    return [(a, total)]


LINALG_RULES: dict[str, Callable] = {
    "linalg_eigh": _eigh, "linalg_eigvalsh": _eigvalsh, "linalg_svd": _svd, "linalg_qr": _qr,
    "linalg_cholesky": _cholesky, "linalg_pinv": _pinv, "linalg_lstsq": _lstsq,
    "linalg_slogdet": _slogdet, "linalg_matrix_power": _matrix_power,
}
