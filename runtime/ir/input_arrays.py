"""Input arrays: the NumPy arrays a graph input takes, and those it refuses.

A graph computes on plain `np.ndarray` data in the machine's byte order.
Arrays that differ from that only in how they store the same values are
converted at the boundary, so the result is the one NumPy gives:

- a big-endian (or otherwise non-native) array becomes a native copy:
  `np.array([1, 2], ">f4")` runs the float32 trace;
- an `np.memmap` is plain data on disk: it is used as the ndarray it views.

Any other ndarray subclass changes what operations mean (`np.ma` masks
entries that reductions skip; `np.matrix` makes `*` a matrix product), and a
graph would silently drop that meaning, so it is refused with a TypeError
that says how to pass plain data.

    >>> plain_array(np.array([1, 2], ">f4")).dtype.isnative
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["native_dtype", "plain_array", "refused_subclass"]

# ndarray subclasses whose values mean what the same plain ndarray means (a class of our own
# says so with `__autograph_plain_data__ = True`: the gradient tape's recorded arrays)
_PLAIN_DATA = (np.memmap,)


def native_dtype(dtype: np.dtype) -> np.dtype:
    """`dtype` in the machine's byte order (the same dtype when it already is)."""
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def plain_array(value: np.ndarray) -> np.ndarray:
    """`value` as a plain native-order ndarray; TypeError for a subclass a graph would misread."""
    if type(value) is not np.ndarray and not getattr(type(value), "__autograph_plain_data__", False):
        if not isinstance(value, _PLAIN_DATA):
            raise refused_subclass(value)
        value = value.view(np.ndarray)
    if not value.dtype.isnative:
        value = value.astype(native_dtype(value.dtype))
    return value


def refused_subclass(value: Any) -> TypeError:
    """The error for an ndarray subclass passed where a graph input goes: what it would lose, the fix."""
    kind = type(value)
    if isinstance(value, np.ma.MaskedArray):
        lost = (
            "a graph computes on an array's data alone, so the mask would be silently dropped "
            "(np.sum would add the masked entries)"
        )
        fix = (
            "pass x.filled(value) to choose what masked entries become (0 for a sum, for example), "
            "or np.asarray(x) to use the data as it is, masked entries included"
        )
    elif isinstance(value, np.matrix):
        lost = "a graph computes with ndarray semantics, where `*` multiplies elementwise, not as a matrix product"
        fix = "pass np.asarray(x) and write the matrix product as x @ y"
    else:
        lost = f"a graph computes on plain ndarrays, so whatever {kind.__qualname__} changes would be dropped"
        fix = "pass np.asarray(x) (a plain ndarray of the same data)"
    return TypeError(f"cannot pass a {kind.__qualname__} (an ndarray subclass) to a Function: {lost}. Fix: {fix}.")
