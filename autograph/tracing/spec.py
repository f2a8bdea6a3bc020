"""TensorSpec: the description of a tensor input (dtype and shape, with wildcards).

A spec stands for every array it fits: `TensorSpec((None,), np.int32)` fits
any 1-D int32 array, `TensorSpec(None)` any float32 array of any rank. Specs
describe `input_signature`s and the arguments of `get_concrete_function`,
and the trace layer uses them to describe each graph input.

    >>> spec = TensorSpec([None], np.int32)
    >>> spec.is_compatible_with(np.array([1, 2], np.int32))
    True
    >>> spec
    TensorSpec(shape=(None,), dtype=int32, name=None)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from runtime.ir.input_arrays import native_dtype
from runtime.ir.types import TensorType, dtype_label, merge_shapes

__all__ = ["TensorSpec", "dtype_label"]


class TensorSpec:
    """An input description: `shape` (None dims, or None for any rank), `dtype`, `name`."""

    __slots__ = ("type", "name")

    def __init__(
        self,
        shape: Iterable[int | None] | None,
        dtype: Any = np.float32,
        name: str | None = None,
    ) -> None:
        dims = None if shape is None else tuple(shape)
        self.type = TensorType(native_dtype(np.dtype(dtype)), dims)  # byte order is storage, not type
        self.name = name

    @classmethod
    def from_value(cls, value: Any, name: str | None = None) -> TensorSpec:
        """The exact spec of a concrete array or staged Tensor."""
        if hasattr(value, "dtype") and hasattr(value, "shape") and not isinstance(value, np.ndarray):
            return cls(value.shape, value.dtype, name)
        array = np.asarray(value)
        return cls(array.shape, array.dtype, name)

    @classmethod
    def from_type(cls, tensor_type: TensorType, name: str | None = None) -> TensorSpec:
        return cls(tensor_type.shape, tensor_type.dtype, name)

    @property
    def shape(self) -> tuple[int | None, ...] | None:
        return self.type.shape

    @property
    def dtype(self) -> np.dtype:
        return self.type.dtype

    def is_compatible_with(self, value: Any) -> bool:
        """Whether an array (or a narrower spec) fits this spec."""
        if isinstance(value, TensorSpec):
            if value.dtype != self.dtype:
                return False
            if self.shape is None:
                return True
            if value.shape is None or len(value.shape) != len(self.shape):
                return False
            return all(d is None or d == v for d, v in zip(self.shape, value.shape))
        return self.type.is_compatible_with(value.dtype, value.shape)

    def most_specific_common(self, other: TensorSpec) -> TensorSpec:
        """The narrowest spec both fit (dims that differ become None)."""
        return TensorSpec(merge_shapes(self.shape, other.shape), self.dtype, self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorSpec) and (self.type, self.name) == (other.type, other.name)

    def __hash__(self) -> int:
        return hash((self.type, self.name))

    def __repr__(self) -> str:
        shape = "None" if self.shape is None else self.type.shape_str()
        return f"TensorSpec(shape={shape}, dtype={dtype_label(self.dtype)}, name={self.name!r})"

