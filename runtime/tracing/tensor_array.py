"""TensorArray: a growable list of tensors that loops write one element at a time.

Outside a trace it works on NumPy values at once. Inside a trace it is a
thin Python object around a *handle*: a Tensor of dtype object whose run-time
value is a Python list of element arrays. The handle is what flows through
the graph, so a TensorArray can be a while-loop variable or a cond output
(`__autograph_tensor__` gives the handle, `__autograph_rebuild__` wraps a new
handle with the same static facts: dtype, element shape, size).

Writes are O(1): "ta_write" stores into the list in place and returns it.
That is safe because the functional API (`ta = ta.write(i, v)`) leaves the
old handle dead in the graph; the op is marked `inplace`, so where the old
handle is still used (another op reads it, or it is captured from an
enclosing graph) the compiler hands the write a copy instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.origin import user_origin
from runtime.ir.types import Shape, TensorType, merge_shapes
from runtime.ops.calls import unknown_dimension
from runtime.ops.state import (
    HANDLE,
    ta_concat,
    ta_gather,
    ta_read,
    ta_scatter,
    ta_size,
    ta_split,
    ta_stack,
    ta_unstack,
    ta_write,
)
from runtime.tracing.record import as_node
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import current_graph

__all__ = ["TensorArray"]



def _stage(op: str, inputs: tuple, attrs: dict, type_: TensorType, name: str = "ta") -> Tensor:
    graph = current_graph()
    nodes = tuple(graph.own(as_node(v, graph)) for v in inputs)
    return Tensor(graph.add_node(op, nodes, attrs, type_, user_origin(3), name=name), graph)


def _element_type(value: Any) -> TensorType:
    if isinstance(value, Tensor):
        return value.type
    if hasattr(value, "__autograph_tensor__"):
        return value.__autograph_tensor__().type
    array = np.asarray(value)
    return TensorType(array.dtype, array.shape)


def _joined_element_shape(a: Shape, b: Shape) -> Shape:
    """The element shape after a cond whose branches left `a` and `b`.

    No shape means nothing written yet: a branch that writes nothing takes the
    other's shape, so an array written only under a tensor-dependent if (a
    filter) still stacks to (0, *shape) when no element passed.
    """
    if a is None or a == b:
        return b
    if b is None:
        return a
    return merge_shapes(a, b)


def _recorded(value: Any) -> bool:
    """Whether `value` is an array an eager GradientTape is recording (outside a Function, a
    TensorArray keeps such values as they are and joins them with NumPy functions, which the tape
    records; NumPy's own conversions would drop what the tape knows)."""
    from runtime.tracing.eager_tape import TapedArray

    return isinstance(value, TapedArray) and value._node is not None and value._recorder.recording


def _joined(items: list, join: Any, plain: Any) -> Any:
    """`join(items)` (np.stack, np.concatenate) when a recorded value is among them, else `plain()`."""
    if not any(_recorded(item) for item in items) or any(item is None for item in items):
        return plain()
    return join(items)


class _Typed:
    """A stand-in value of a given type, for `_check_element` (a scattered row)."""

    def __init__(self, type_: TensorType) -> None:
        self.type = type_

    def __autograph_tensor__(self) -> _Typed:
        return self


def _length(indices: Any) -> int | None:
    """The number of entries of a 1-d index or lengths argument, when known."""
    type_ = _element_type(indices)
    if type_.shape is None or len(type_.shape) != 1:
        if type_.shape is not None and len(type_.shape) != 1:
            raise StagingError(f"TensorArray indices and lengths must be 1-d, not of shape {type_.shape}")
        return None
    return type_.shape[0]


class TensorArray:
    """A list of tensors of one dtype: `write`, `read`, `stack`, `unstack`, `size`,
    `gather`, `scatter`, `concat`, `split`."""

    def __init__(
        self, dtype: Any, size: Any = 0, dynamic_size: bool = False, element_shape: Any = None,
    ) -> None:
        self.dtype = np.dtype(dtype)
        self.dynamic_size = bool(dynamic_size)
        self.element_shape: Shape = None if element_shape is None else tuple(element_shape)
        self._handle: Tensor | None = None
        self._items: list = []
        self._dense = False  # every element written (made by unstack): reads need no check
        if current_graph() is None:
            if isinstance(size, Tensor):
                raise StagingError("a TensorArray's size is a tensor outside of a trace")
            self._size: int | None = int(size)
            self._items = [None] * self._size
            return
        if size is None:
            raise unknown_dimension(f"ag.TensorArray({self.dtype.name}, size=None)")
        self._size = None if isinstance(size, Tensor) else int(size)
        inputs = (size,) if isinstance(size, Tensor) else (np.int64(self._size),)
        self._handle = _stage("ta_new", inputs, {"dynamic": self.dynamic_size}, HANDLE)

    # -- staging protocol ---------------------------------------------------
    @property
    def staged(self) -> bool:
        return self._handle is not None

    def __autograph_tensor__(self) -> Tensor:
        if self._handle is None:
            graph = current_graph()
            node = graph.add_node("constant", (), {"value": list(self._items)}, HANDLE, name="ta")
            return Tensor(node, graph)
        return self._handle

    def __autograph_rebuild__(self, handle: Tensor) -> TensorArray:
        """The same kind of array around another handle (a loop or cond output)."""
        new = object.__new__(TensorArray)
        new.dtype, new.dynamic_size, new.element_shape = self.dtype, self.dynamic_size, self.element_shape
        new._size, new._handle, new._items, new._dense = self._size, handle, [], self._dense
        return new

    def __autograph_join__(self, other: Any) -> TensorArray:
        """Static facts true of both branches' arrays (the template of a cond's output)."""
        if not isinstance(other, TensorArray) or other.dtype != self.dtype:
            return self
        joined = self.__autograph_rebuild__(self._handle)
        joined.element_shape = _joined_element_shape(self.element_shape, other.element_shape)
        joined._size = self._size if self._size == other._size else None
        joined._dense = self._dense and other._dense
        return joined

    def _check_element(self, value: Any) -> None:
        type_ = _element_type(value)
        if type_.dtype != self.dtype and not np.can_cast(type_.dtype, self.dtype, "same_kind"):
            raise StagingError(
                f"cannot write a {type_.dtype.name} value into a TensorArray of {self.dtype.name}; "
                f"cast it with .astype(np.{self.dtype.name})."
            )
        if self.element_shape is None:
            self.element_shape = type_.shape
        else:
            self.element_shape = merge_shapes(self.element_shape, type_.shape)

    # -- the API --------------------------------------------------------------
    def write(self, index: Any, value: Any) -> TensorArray:
        """Store `value` at `index`; use the returned array from then on."""
        if self._handle is None:
            self._check_element(value)
            if _recorded(value) and value.dtype != self.dtype:
                value = value.astype(self.dtype)
            ta_write(self._items, index, value, self.dynamic_size, self.dtype)
            return self
        new = self.__autograph_rebuild__(self._handle)
        new._check_element(value)
        attrs = {"dynamic": self.dynamic_size, "dtype": self.dtype}
        new._handle = _stage("ta_write", (self._handle, index, value), attrs, HANDLE)
        new._dense = False
        return new

    def read(self, index: Any) -> Any:
        if self._handle is None:
            return ta_read(self._items, index)
        attrs = {"dense": True} if self._dense else {}
        return _stage("ta_read", (self._handle, index), attrs, TensorType(self.dtype, self.element_shape), "read")

    def stack(self) -> Any:
        attrs = {"dtype": self.dtype, "element_shape": self.element_shape}
        if self._handle is None:
            return _joined(self._items, np.stack, lambda: ta_stack(self._items, **attrs))
        lead = None if self.dynamic_size else self._size
        shape = None if self.element_shape is None else (lead, *self.element_shape)
        return _stage("ta_stack", (self._handle,), attrs, TensorType(self.dtype, shape), "stack")

    def unstack(self, value: Any) -> TensorArray:
        """A TensorArray holding the rows of `value`."""
        type_ = _element_type(value)
        if self._handle is None:
            new = TensorArray(self.dtype, 0, self.dynamic_size, self.element_shape)
            new._items = ta_unstack(value, self.dtype)
            if _recorded(value):
                rows = value.astype(self.dtype) if value.dtype != self.dtype else value
                new._items = [rows[i] for i in range(len(new._items))]
            new._size = len(new._items)
            new.element_shape = type_.shape[1:] if type_.shape else new.element_shape
            return new
        new = self.__autograph_rebuild__(self._handle)
        if type_.shape:
            new._size = type_.shape[0]
            new.element_shape = type_.shape[1:]
        new._handle = _stage("ta_unstack", (value,), {"dtype": self.dtype}, HANDLE)
        new._dense = True
        return new

    def gather(self, indices: Any) -> Any:
        """The elements at `indices` (a 1-d int array), stacked."""
        count = _length(indices)
        attrs = {"dtype": self.dtype, "element_shape": self.element_shape}
        if self._handle is None:
            chosen = [ta_read(self._items, int(i)) for i in np.asarray(indices).reshape(-1)]
            return _joined(chosen, np.stack, lambda: ta_gather(self._items, indices, **attrs))
        shape = None if self.element_shape is None else (count, *self.element_shape)
        return _stage("ta_gather", (self._handle, indices), attrs, TensorType(self.dtype, shape), "gather")

    def scatter(self, indices: Any, value: Any) -> TensorArray:
        """Row k of `value` stored at `indices[k]`; use the returned array from then on."""
        row = _element_type(value)
        count = _length(indices)
        if row.shape is not None and row.shape and None not in (count, row.shape[0]) and count != row.shape[0]:
            raise StagingError(f"TensorArray.scatter: {count} indices but the value has {row.shape[0]} rows")
        row_type = TensorType(row.dtype, None if row.shape is None else row.shape[1:])
        if self._handle is None:
            self._check_element(_Typed(row_type))
            ta_scatter(self._items, indices, value, self.dynamic_size, self.dtype)
            if _recorded(value):
                rows = value.astype(self.dtype) if value.dtype != self.dtype else value
                for k, i in enumerate(np.asarray(indices).reshape(-1)):
                    self._items[int(i)] = rows[k]
            return self
        new = self.__autograph_rebuild__(self._handle)
        new._check_element(_Typed(row_type))
        attrs = {"dynamic": self.dynamic_size, "dtype": self.dtype}
        new._handle = _stage("ta_scatter", (self._handle, indices, value), attrs, HANDLE)
        new._dense = False
        return new

    def concat(self) -> Any:
        """All elements joined along their first axis (elements may differ in length)."""
        attrs = {"dtype": self.dtype, "element_shape": self.element_shape}
        if self._handle is None:
            return _joined(self._items, np.concatenate, lambda: ta_concat(self._items, **attrs))
        shape = None if not self.element_shape else (None, *self.element_shape[1:])
        return _stage("ta_concat", (self._handle,), attrs, TensorType(self.dtype, shape), "concat")

    def split(self, value: Any, lengths: Any) -> TensorArray:
        """A TensorArray holding consecutive pieces of `value` with the given `lengths`."""
        type_ = _element_type(value)
        count = _length(lengths)
        concrete = not isinstance(lengths, Tensor) and not hasattr(lengths, "__autograph_tensor__")
        sizes = set(np.asarray(lengths).reshape(-1).tolist()) if concrete else {None}
        lead = sizes.pop() if len(sizes) == 1 else None
        element_shape = None if type_.shape is None else (lead, *type_.shape[1:])
        if self._handle is None:
            new = TensorArray(self.dtype, 0, self.dynamic_size, element_shape)
            new._items = ta_split(value, lengths, self.dtype)
            new._size = len(new._items)
            if _recorded(value):
                ends = np.cumsum(np.asarray(lengths).reshape(-1))
                rows = value.astype(self.dtype) if value.dtype != self.dtype else value
                new._items = [rows[int(end - piece.shape[0]):int(end)] for end, piece in zip(ends, new._items)]
            return new
        new = self.__autograph_rebuild__(self._handle)
        new._size, new.element_shape = count, element_shape
        new._handle = _stage("ta_split", (value, lengths), {"dtype": self.dtype}, HANDLE)
        new._dense = True
        return new

    def size(self) -> Any:
        """The number of elements, as an int64."""
        if self._handle is None:
            return ta_size(self._items)
        return _stage("ta_size", (self._handle,), {}, TensorType(np.int64, ()), "size")

    def __repr__(self) -> str:
        mode = "staged" if self._handle is not None else f"{len(self._items)} elements"
        return f"<TensorArray {self.dtype.name} {mode}>"
