"""np.fft: fft, ifft, rfft, irfft, fft2, ifft2, fftn, ifftn and fftshift as ops.

Lengths and axes (n=, s=, axis=, axes=) decide the result's shape, so they
must be Python values; the type comes from NumPy run on zero arrays (a
transform of zeros is cheap), with unknown sizes probed at several lengths.
`fftfreq`/`rfftfreq` need no op: NumPy computes them with arithmetic on the
(staged) spacing `d`, which stages by itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.arguments import require_concrete
from runtime.ops.define import define
from runtime.ops.probing import probe_type

__all__ = ["TRANSFORMS", "FFT_FUNCTIONS"]

TRANSFORMS = ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "fftn", "ifftn", "fftshift", "ifftshift")
FFT_FUNCTIONS = (*TRANSFORMS, "fftfreq", "rfftfreq")
_LENGTHS = frozenset({"n", "s", "axis", "axes"})


def _rule(fn: Callable) -> Callable[..., TensorType]:
    def rule(*args: Any, **kwargs: Any) -> TensorType:
        require_concrete(fn, args, kwargs, _LENGTHS)
        return probe_type(fn, args, kwargs)

    return rule


for _name in TRANSFORMS:
    _fn = getattr(np.fft, _name)
    define(f"fft_{_name}", _fn, _rule(_fn), path=f"np.fft.{_name}")
