"""A Variable restored from a saved directory, shared by every function loaded with it.

Loading runs no converter and no tracing, so the restored state is not a
runtime Variable: `RestoredVariable` holds the saved value and offers the
reads and writes (`assign`, `assign_add`, `assign_sub`, `numpy`) the loaded
graphs and their callers need, with the same dtype and shape rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.errors import InvalidArgumentError
from runtime.ir.types import TensorType
from runtime.ops.state import stored_value

__all__ = ["RestoredVariable"]


class RestoredVariable:
    """A Variable restored from a saved directory: its value, `assign`, `assign_add`, `assign_sub`.

    The loaded functions read and write it as the saved ones did their Variable; it is
    shared by every function loaded with it.
    """

    __array_priority__ = 1001

    def __init__(self, name: str, type_: TensorType, value: np.ndarray | None) -> None:
        self.name = name
        self._type = type_
        self._value = None if value is None else np.array(value, dtype=type_.dtype)

    @property
    def dtype(self) -> np.dtype:
        return self._type.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self._type.shape  # type: ignore[return-value]

    @property
    def is_initialized(self) -> bool:
        return self._value is not None

    def _current(self) -> np.ndarray:
        if self._value is None:
            raise InvalidArgumentError(
                f"the Variable '{self.name}' has no value yet: it was saved before the function that "
                f"computes its initial value ran. Call that function first."
            )
        return self._value

    def _store(self, value: Any, mode: str) -> None:
        self._value = stored_value(self, value, mode)

    def _assign(self, value: Any, mode: str) -> RestoredVariable:
        value = value._current() if isinstance(value, RestoredVariable) else value
        dtype = np.asarray(value).dtype
        if not np.can_cast(dtype, self.dtype, "same_kind"):
            raise InvalidArgumentError(
                f"cannot assign a {dtype.name} value to the {self.dtype.name} Variable '{self.name}'; "
                f"cast it first with .astype(np.{self.dtype.name})."
            )
        self._store(value, mode)
        return self

    def assign(self, value: Any) -> RestoredVariable:
        return self._assign(value, "assign")

    def assign_add(self, value: Any) -> RestoredVariable:
        return self._assign(value, "add")

    def assign_sub(self, value: Any) -> RestoredVariable:
        return self._assign(value, "sub")

    def numpy(self) -> Any:
        value = self._current()
        return value[()] if value.ndim == 0 else value.copy()

    def read_value(self) -> Any:
        return self.numpy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.array(self._current(), dtype=dtype, copy=True if copy else None)

    def __repr__(self) -> str:
        value = "<not yet initialised>" if self._value is None else repr(self._value)
        return f"<RestoredVariable '{self.name}' shape={self.shape} dtype={self.dtype.name}, numpy={value}>"
