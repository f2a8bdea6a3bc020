"""Vector-Jacobian products of np.fft: the transforms' adjoints, and the shifts undone.

Gradients of complex values follow TensorFlow's convention (dL/dRe + i
dL/dIm, so a real input's gradient is real): `np.real(np.fft.ifft(np.fft.fft(x)
* h))`, a filter, differentiates with respect to a real `x`. The transforms
have one helper op (`fft_grad`, see grad_ops_spectral); `fftshift` and
`ifftshift` undo each other with ordinary ops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.graph import Node
from runtime.ops.arguments import bind_arguments
from runtime.passes.gradient.errors import not_differentiable
from runtime.passes.gradient.rules_math import call_args

__all__ = ["SPECTRAL_RULES", "TAKES_COMPLEX_AS_IS"]

Pairs = list[tuple[Node, Any]]
_KEYS = ("n", "axis", "s", "axes", "norm")


def _transform(fn: str) -> Callable:
    def rule(t, node: Node, g: Node) -> Pairs:
        args, kwargs = call_args(node)
        bound = bind_arguments(getattr(np.fft, fn), args, kwargs)
        x = bound.get("a")
        if not isinstance(x, Node):
            return []
        if bound.get("out") is not None:
            raise not_differentiable(node, "with out=")
        attrs = {"fn": fn, **{k: _plain(bound[k]) for k in _KEYS if bound.get(k) is not None}}
        if attrs.get("norm") == "backward":
            del attrs["norm"]
        return [(x, t.em.node("fft_grad", (g, x), attrs, type_=x.type))]

    return rule


def _plain(value: Any) -> Any:
    return tuple(int(v) for v in value) if isinstance(value, (list, tuple)) else value


def _shift(inverse: str) -> Callable:
    def rule(t, node: Node, g: Node) -> Pairs:
        args, kwargs = call_args(node)
        bound = bind_arguments(np.fft.fftshift, args, kwargs)
        x = bound["x"]
        if not isinstance(x, Node):
            return []
        return [(x, t.em.call(inverse, g, axes=_plain(bound.get("axes"))))]

    return rule


SPECTRAL_RULES: dict[str, Callable] = {
    f"fft_{fn}": _transform(fn) for fn in ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "fftn", "ifftn")
}
SPECTRAL_RULES["fft_fftshift"] = _shift("fft_ifftshift")
SPECTRAL_RULES["fft_ifftshift"] = _shift("fft_fftshift")

# rules that already give TensorFlow's complex gradient (the transform does not conjugate around
# them): the transforms' adjoints, and functions of |z| or of the real and imaginary parts
TAKES_COMPLEX_AS_IS = frozenset(SPECTRAL_RULES) | {
    "absolute", "abs", "fabs", "real", "imag", "conjugate", "conj", "cast", "var", "std", "linalg_norm",
    "fft_grad",
}
