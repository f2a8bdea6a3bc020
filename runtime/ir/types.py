"""TensorType: the abstract value of a staged tensor (dtype + shape).

It types every graph node and is half of a trace's cache key, so it is small,
immutable, hashable and prints short: `float32[3, None]`, `int64[]`,
`float32[<unknown rank>]` when even the rank is unknown (not `[?]`, which
reads like one dimension of unknown size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Shape", "TensorType", "type_of", "merge_shapes", "dtype_label"]

Shape = tuple[int | None, ...] | None


@dataclass(frozen=True, slots=True, init=False)
class TensorType:
    """dtype and shape of a tensor; `shape is None` means unknown rank."""

    dtype: np.dtype
    shape: Shape

    def __init__(self, dtype: Any, shape: Shape) -> None:
        # The slots' own setters, not object.__setattr__: a trace makes a type per node.
        _set_dtype(self, dtype if isinstance(dtype, np.dtype) else np.dtype(dtype))
        if shape is not None and not _is_plain_shape(shape):
            shape = tuple(None if d is None else int(d) for d in shape)
        _set_shape(self, shape)

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    @property
    def is_fully_defined(self) -> bool:
        return self.shape is not None and None not in self.shape

    def is_compatible_with(self, value_dtype: np.dtype, value_shape: tuple[int, ...]) -> bool:
        """Whether a concrete array of this dtype/shape fits this type."""
        if np.dtype(value_dtype) != self.dtype:
            return False
        if self.shape is None:
            return True
        if len(self.shape) != len(value_shape):
            return False
        return all(d is None or d == v for d, v in zip(self.shape, value_shape))

    def shape_str(self) -> str:
        if self.shape is None:
            return "<unknown>"
        return "(" + ", ".join(str(d) for d in self.shape) + ("," if len(self.shape) == 1 else "") + ")"

    def __str__(self) -> str:
        if self.shape is None:
            return f"{self.dtype.name}[<unknown rank>]"
        return f"{self.dtype.name}[{', '.join(str(d) for d in self.shape)}]"


_set_dtype, _set_shape = vars(TensorType)["dtype"].__set__, vars(TensorType)["shape"].__set__


def _is_plain_shape(shape: object) -> bool:
    """A tuple of Python ints and Nones: already what TensorType keeps (types are made per node)."""
    if type(shape) is not tuple:
        return False
    for dim in shape:
        if dim is not None and type(dim) is not int:
            return False
    return True


def type_of(value: object) -> TensorType:
    """The TensorType of a concrete value (NumPy array, NumPy or Python scalar)."""
    array = np.asarray(value)
    return TensorType(array.dtype, array.shape)


def merge_shapes(a: Shape, b: Shape) -> Shape:
    """Most specific shape both fit: dims that differ become None, ranks that differ unknown."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))



def dtype_label(dtype: np.dtype) -> str:
    """A dtype as tensors and signatures print it: `float32`; any text dtype `string`, as the
    guide prints it, and any bytes dtype `bytes` (NumPy's own names, like `str96`, count the
    bits of the longest string seen)."""
    return {"U": "string", "S": "bytes"}.get(dtype.kind, dtype.name)
