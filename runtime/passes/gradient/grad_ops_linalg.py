"""Gradient helper ops of the np.linalg decompositions: eigh, svd, qr, cholesky, lstsq, pinv.

Each recomputes the decomposition of the forward input in NumPy (the forward
op is one node per result, so a helper gets the input, not the other
results) and returns the vector-Jacobian product for real matrices, batched
over leading dimensions:

    eigh_grad(g, a, index=0)      # g is the gradient of the eigenvalues
    svd_grad(g, a, index=1, full_matrices=False)

Functions that read one triangle of their input (eigh, cholesky) give the
gradient of that function as NumPy computes it: nonzero only on the triangle
read (TensorFlow's convention), so finite differences agree elementwise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.passes.gradient.grad_ops import GRAD_OPS, _like, _register

__all__ = ["LINALG_GRAD_OPS"]


def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _diag(v: np.ndarray) -> np.ndarray:
    """A batch of diagonal matrices from a batch of vectors."""
    return v[..., :, None] * np.eye(v.shape[-1], dtype=v.dtype)


def _gaps(w: np.ndarray) -> np.ndarray:
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    diff = w[..., None, :] - w[..., :, None]
    eye = np.eye(w.shape[-1], dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, diff))


def _one_triangle(sym: np.ndarray, lower: bool) -> np.ndarray:
    """The gradient of a function that reads only one triangle, from its symmetric gradient."""
    tri = np.tril(sym + _mT(sym)) if lower else np.triu(sym + _mT(sym))
    n = sym.shape[-1]
    idx = np.arange(n)
    tri[..., idx, idx] = sym[..., idx, idx]
    return tri


def eigh_grad(g: Any, a: Any, index: int, UPLO: str = "L") -> np.ndarray:  # noqa: N803
    a = np.asarray(a)
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    g = np.asarray(g, dtype=w.dtype)
    if index == 0:
        inner = _diag(g)
    else:
        inner = _gaps(w) * (_mT(v) @ g)
    full = v @ inner @ _mT(v)
    return _one_triangle((full + _mT(full)) / 2, UPLO.upper() == "L").astype(a.dtype, copy=False)


def svd_grad(g: Any, a: Any, index: int | None, full_matrices: bool = True, compute_uv: bool = True) -> np.ndarray:
    """The reduced SVD's gradient (Townsend's formulas; full matrices are refused unless square):
    F[i, j] = 1 / (s_j^2 - s_i^2), J = F * (U^T gU), gA = U (J + J^T) S V^T + (I - U U^T) gU S^-1 V^T,
    and the same for V."""
    a = np.asarray(a)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    g = np.asarray(g, dtype=a.dtype)
    if index in (None, 1):
        return u @ _diag(g) @ vh
    v = _mT(vh)
    s2 = s * s
    f = _gaps(s2)
    inv_s = np.where(s > 0, 1.0 / np.where(s > 0, s, 1.0), 0.0)
    if index == 0:
        gu = g
        j = f * (_mT(u) @ gu)
        core = (j + _mT(j)) * s[..., None, :]
        out = u @ core @ vh
        proj = gu - u @ (_mT(u) @ gu)
        return out + (proj * inv_s[..., None, :]) @ vh
    gv = _mT(g)
    k = f * (_mT(v) @ gv)
    core = s[..., :, None] * (k + _mT(k))
    out = u @ core @ vh
    proj = _mT(gv) - (_mT(gv) @ v) @ vh
    return out + (u * inv_s[..., None, :]) @ proj


def qr_grad(g: Any, a: Any, index: int | None, mode: str = "reduced") -> np.ndarray:
    """A = QR with m >= n: gA = (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q."""
    a = np.asarray(a)
    q, r = np.linalg.qr(a, mode="reduced")
    g = np.asarray(g, dtype=a.dtype)
    if index == 0:
        gq, gr = g, np.zeros_like(r)
    else:
        gq, gr = np.zeros_like(q), g
    m = r @ _mT(gr) - _mT(gq) @ q
    copied = np.tril(m) + _mT(np.tril(m, -1))
    b = gq + q @ copied
    return _mT(np.linalg.solve(r, _mT(b)))  # b @ R^-T


def cholesky_grad(g: Any, y: Any, upper: bool = False) -> np.ndarray:
    """L = chol(A): the symmetric gradient is L^-T Phi(L^T gL) L^-1 symmetrised (Phi: tril, diagonal halved)."""
    y = np.asarray(y)
    g = np.asarray(g, dtype=y.dtype)
    low, gl = (_mT(y), _mT(g)) if upper else (y, g)
    p = _mT(low) @ gl
    phi = np.tril(p)
    n = p.shape[-1]
    idx = np.arange(n)
    phi[..., idx, idx] *= 0.5
    left = np.linalg.solve(_mT(low), phi)  # L^-T Phi
    s = _mT(np.linalg.solve(_mT(low), _mT(left)))  # (L^-T Phi) L^-1
    return _one_triangle((s + _mT(s)) / 2, not upper)


def pinv_vjp(gp: np.ndarray, a: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The gradient of P = pinv(A) at constant rank (Golub and Pereyra)."""
    m, n = a.shape[-2], a.shape[-1]
    ap = np.eye(m) - a @ p
    pa = np.eye(n) - p @ a
    pt = _mT(p)
    return -pt @ gp @ pt + ap @ _mT(gp) @ p @ pt + pt @ p @ _mT(gp) @ pa


def pinv_grad(g: Any, a: Any, p: Any) -> np.ndarray:
    a = np.asarray(a)
    return pinv_vjp(np.asarray(g, dtype=a.dtype), a, np.asarray(p)).astype(a.dtype, copy=False)


def lstsq_grad(g: Any, a: Any, b: Any, index: int, which: int, rcond: Any = None) -> np.ndarray:
    """x = pinv(A) b (index 0), the residuals |b - A x|^2 (index 1), the singular values (index 3)."""
    a, b = np.asarray(a), np.asarray(b)
    g = np.asarray(g, dtype=a.dtype)
    if index == 3:
        return svd_grad(g, a, 1) if which == 0 else np.zeros_like(b)
    x, _, rank, _ = np.linalg.lstsq(a, b, rcond=rcond)
    vector = b.ndim == 1
    bm, xm = (b[:, None], x[:, None]) if vector else (b, x)
    if index == 1:
        if g.size == 0:  # no residuals were returned: nothing depends on them
            return np.zeros_like(a if which == 0 else b)
        r = bm - a @ xm
        gr = 2.0 * r * np.reshape(g, (1, -1))
        return -(gr @ _mT(xm)) if which == 0 else np.reshape(gr, b.shape)
    p = np.linalg.lstsq(a, np.eye(a.shape[0]), rcond=rcond)[0]  # pinv with lstsq's own cutoff
    gm = g[:, None] if vector else g
    if which == 1:
        return np.reshape(_mT(p) @ gm, b.shape)
    return pinv_vjp(gm @ _mT(bm), a, p)


LINALG_GRAD_OPS = {
    "eigh_grad": _register("eigh_grad", eigh_grad, _like(1)),
    "svd_grad": _register("svd_grad", svd_grad, _like(1)),
    "qr_grad": _register("qr_grad", qr_grad, _like(1)),
    "cholesky_grad": _register("cholesky_grad", cholesky_grad, _like(1)),
    "pinv_grad": _register("pinv_grad", pinv_grad, _like(1)),
    "lstsq_grad": _register("lstsq_grad", lstsq_grad, lambda t, a: t[1 + a["which"]]),
}
GRAD_OPS.update(LINALG_GRAD_OPS)
