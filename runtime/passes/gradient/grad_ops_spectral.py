"""The gradient helper op of np.fft's transforms: `fft_grad(g, x, fn=..., n=..., axis=..., norm=...)`.

A discrete Fourier transform is linear, so its gradient is its adjoint
applied to the incoming gradient: the inverse transform with the opposite
normalisation (`fft`'s adjoint is `n * ifft`), with the padding or cropping
that `n=`/`s=` did undone. Complex gradients follow TensorFlow's convention
(dL/dRe + i dL/dIm), so a real input gets the real part. `rfft` and `irfft`
map between real arrays and half spectra, so their adjoints pad the half
spectrum or weight the bins that stand for two (all but 0 and n/2) twice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.passes.gradient.grad_ops import GRAD_OPS, _like, _register

__all__ = ["fft_grad", "transformed_axes"]

_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}
_ADJOINT = {"fft": np.fft.ifft, "ifft": np.fft.fft, "fft2": np.fft.ifftn, "ifft2": np.fft.fftn,
            "fftn": np.fft.ifftn, "ifftn": np.fft.fftn}


def transformed_axes(fn: str, ndim: int, kwargs: dict) -> tuple[int, ...]:
    """The axes `np.fft.<fn>(x, **kwargs)` transforms, non-negative."""
    if fn in ("fft", "ifft", "rfft", "irfft"):
        axes: Any = (kwargs.get("axis", -1),)
    elif fn in ("fft2", "ifft2"):
        axes = kwargs.get("axes", (-2, -1))
    else:
        axes = kwargs.get("axes")
        if axes is None:
            s = kwargs.get("s")
            axes = range(ndim) if s is None else range(-len(s), 0)
    return tuple(int(a) % ndim for a in axes)


def _fit(value: np.ndarray, shape: tuple, axes: tuple[int, ...]) -> np.ndarray:
    """`value` cropped or zero-padded to `shape` along `axes` (undoing what n=/s= did to the input)."""
    for a in axes:
        have, want = value.shape[a], shape[a]
        if have > want:
            value = np.take(value, np.arange(want), axis=a)
        elif have < want:
            pad = [(0, 0)] * value.ndim
            pad[a] = (0, want - have)
            value = np.pad(value, pad)
    return value


def fft_grad(g: Any, x: Any, fn: str, n: Any = None, axis: int = -1, s: Any = None, axes: Any = None,
             norm: str | None = None) -> np.ndarray:
    x = np.asarray(x)
    g = np.asarray(g)
    kwargs = {"axis": axis} if fn in ("fft", "ifft", "rfft", "irfft") else {"s": s, "axes": axes}
    if kwargs.get("axes") is None:
        kwargs.pop("axes", None)
    ax = transformed_axes(fn, x.ndim, kwargs)
    adjoint_norm = _SWAP[norm]
    if fn == "rfft":
        length = x.shape[ax[0]] if n is None else n
        out = np.fft.ifft(g, n=length, axis=ax[0], norm=adjoint_norm)
    elif fn == "irfft":
        length = g.shape[ax[0]]
        out = np.fft.rfft(g, axis=ax[0], norm=adjoint_norm)
        weight = np.full(out.shape[ax[0]], 2.0)
        weight[0] = 1.0
        if length % 2 == 0:
            weight[-1] = 1.0
        out = out * np.expand_dims(weight, tuple(i for i in range(out.ndim) if i != ax[0]))
    elif fn in ("fft", "ifft"):
        out = _ADJOINT[fn](g, axis=ax[0], norm=adjoint_norm)
    else:
        out = _ADJOINT[fn](g, axes=ax, norm=adjoint_norm)
    out = _fit(out, x.shape, ax)
    if x.dtype.kind != "c":
        out = out.real
    return np.asarray(out, dtype=x.dtype)


GRAD_OPS["fft_grad"] = _register("fft_grad", fft_grad, _like(1))
