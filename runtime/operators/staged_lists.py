"""Python lists appended to inside staged loops, carried as TensorArrays.

    outputs = []
    for x in data:                 # data: a Tensor -> one staged loop
        outputs.append(x * 2)      # -> outputs = ag__.list_append(outputs, x * 2)
    return np.stack(outputs)

A list that is empty when a staged loop starts becomes a `StagedList` for the
loop: a value holding a dynamically sized TensorArray, whose `append` returns
a new StagedList (`list_append` rebinds the name). Its element type is
learnt by tracing the loop body once into a throwaway graph (`ProbeList`
records what is appended). After the loop, `np.stack(l)`, `len(l)`, `l[i]`
and iterating `l` in another loop work on the staged array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.origin import Origin
from runtime.ir.types import TensorType
from runtime.operators.staged_state import rule_error
from runtime.tracing.frontend import get_frontend

__all__ = ["StagedList", "PendingList", "ProbeList"]


class StagedList:
    """A list value inside a trace, backed by a TensorArray.

    It travels through conds and loops as the TensorArray's handle
    (`__autograph_tensor__` / `__autograph_rebuild__`), so a function that
    returns it gives back a Python list of the elements.
    """

    __slots__ = ("array",)
    __autograph_staged_list__ = True
    __autograph_staged_iterable__ = True

    def __init__(self, array: Any) -> None:
        self.array = array

    def __repr__(self) -> str:
        return f"StagedList({self.array!r})"

    def __autograph_tensor__(self) -> Any:
        return self.array.__autograph_tensor__()

    def __autograph_rebuild__(self, handle: Any) -> StagedList:
        return StagedList(self.array.__autograph_rebuild__(handle))

    def append(self, element: Any) -> StagedList:
        return StagedList(self.array.write(self.array.size(), element))

    def stack(self) -> Any:
        return self.array.stack()

    def __getitem__(self, index: Any) -> Any:
        return self.array.read(index)

    def __iter__(self):
        from runtime.operators.staged_iterables import iterate_for_numpy

        return iterate_for_numpy(self)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.stack and args and args[0] is self and not kwargs.get("axis"):
            return self.stack()
        return NotImplemented

    def as_staged_iterable(self):
        from runtime.operators.staged_iterables import TensorArrayIterable

        return TensorArrayIterable(self.array)


class PendingList:
    """An empty Python list at the start of a staged loop, not yet typed."""

    def __init__(self, original: list, name: str) -> None:
        self.original, self.name = original, name


class ProbeList:
    """Stands for a PendingList while the loop body is traced to learn types."""

    __autograph_staged_list__ = True

    def __init__(self, name: str, origin: Origin | None = None) -> None:
        self.name, self.origin = name, origin
        self.element_type: TensorType | None = None

    def append(self, element: Any) -> ProbeList:
        frontend = get_frontend(element)
        if frontend.is_staged(element):
            type_ = frontend.type_of(element)
        elif isinstance(element, (bool, int, float, complex, np.generic, np.ndarray)):
            array = np.asarray(element)
            type_ = TensorType(array.dtype, array.shape)
        else:
            raise rule_error(
                f"the list '{self.name}' is appended {type(element).__name__} values inside a "
                f"staged loop", self.origin,
                "Only Tensors and numbers can be accumulated in a staged loop; append those "
                "(or use ag.TensorArray), or build the list outside the loop.",
            )
        if self.element_type is not None and self.element_type.dtype != type_.dtype:
            raise rule_error(
                f"the list '{self.name}' is appended both {self.element_type.dtype} and "
                f"{type_.dtype} values inside a staged loop", self.origin,
                f"Append values of one dtype (cast with .astype(np.{self.element_type.dtype})).",
            )
        self.element_type = type_
        return self

    def staged(self) -> StagedList | None:
        """The real StagedList for the loop, or None when nothing was appended."""
        if self.element_type is None:
            return None
        array = get_frontend().make_tensor_array(
            self.element_type.dtype, size=0, dynamic_size=True, element_shape=self.element_type.shape
        )
        return StagedList(array)
