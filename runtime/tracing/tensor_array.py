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

import operator
from typing import Any

import numpy as np

from runtime.ir.errors import InvalidArgumentError, StagingError
from runtime.ir.origin import user_origin
from runtime.ir.types import Shape, TensorType, merge_shapes
from runtime.ops.calls import unknown_dimension
from runtime.ops.registry import OPS, Op, register
from runtime.tracing.record import as_node
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import current_graph

__all__ = ["TensorArray"]

HANDLE = TensorType(np.dtype(object), ())


# -- run-time implementations (NumPy values; the handle is a list) ------------
def ta_new(*size: Any, dynamic: bool) -> list:
    """A fresh buffer of `size` unwritten slots."""
    return [None] * int(size[0]) if size else []


def ta_write(items: list, index: Any, value: Any, dynamic: bool, dtype: np.dtype) -> list:
    """Store `value` at `index` (growing the buffer when dynamic); returns the same list."""
    value_dtype = getattr(value, "dtype", None)
    if value_dtype is not dtype and value_dtype != dtype:
        value = np.asarray(value, dtype=dtype)
    i = operator.index(index)
    size = len(items)
    if 0 <= i < size:
        items[i] = value
    elif dynamic and i >= size:
        if i > size:
            items.extend([None] * (i - size))
        items.append(value)
    else:
        raise InvalidArgumentError(
            f"TensorArray index {i} is out of bounds for size {size}; create it with "
            f"dynamic_size=True to let it grow."
        )
    return items


def ta_read(items: list, index: Any, dense: bool = False) -> Any:
    """The element at `index` (a dense array, made by unstack, has every element)."""
    try:
        value = items[index]
    except IndexError:
        value = None
    if value is None:
        raise InvalidArgumentError(f"TensorArray element {int(index)} was read before it was written")
    return value


def ta_stack(items: list, dtype: np.dtype, element_shape: Shape) -> np.ndarray:
    """All elements stacked along a new first axis."""
    if not items:
        if element_shape is None or None in element_shape:
            raise InvalidArgumentError(
                "cannot stack an empty TensorArray whose element shape is unknown; create it with "
                "element_shape=... (for example element_shape=() for scalars) so that nothing "
                "written stacks to an array of shape (0, *element_shape)"
            )
        return np.zeros((0, *element_shape), dtype)
    stacked = _stack_rows(items, dtype, element_shape)
    if stacked is not None:
        return stacked
    if any(item is None for item in items):
        missing = next(i for i, item in enumerate(items) if item is None)
        raise InvalidArgumentError(
            f"cannot stack a TensorArray whose element {missing} was never written (write returns the "
            f"TensorArray holding the new element: keep it, as in ta = ta.write(i, value))"
        )
    if np.dtype(dtype).kind != "O":
        # np.array builds the stack in one pass (np.stack makes a view of every element
        # first: 3x slower for 1,000 small elements); elements of different shapes make
        # it fail, and np.stack then raises its own error. A numeric element has
        # exactly the array's dtype (ta_write and ta_unstack convert), so naming it
        # spares NumPy discovering it element by element: half the time again (text
        # elements keep their own lengths, which the stack's dtype takes the longest of).
        numeric = np.dtype(dtype).kind in "biufc"
        try:
            return np.array(items, dtype=dtype) if numeric else np.array(items)
        except ValueError:
            pass
    return np.stack(items)


def _stack_rows(items: list, dtype: np.dtype, element_shape: Shape) -> np.ndarray | None:
    """The stack of numeric elements of a known shape of rank >= 1, or None to take the long way.

    An unwritten element (None) among such elements makes np.array fail (they no
    longer nest evenly) or, if every one is unwritten, return a 1-d array: the
    result's shape alone says that every element was written, which spares the
    test of each element (a quarter of the stack's time for 1,000 small ones).
    """
    if not element_shape or None in element_shape or np.dtype(dtype).kind not in "biufc":
        return None
    try:
        stacked = np.array(items, dtype=dtype)
    except (ValueError, TypeError):
        return None
    return stacked if stacked.shape == (len(items), *element_shape) else None


def ta_unstack(value: Any, dtype: np.dtype) -> list:
    """A buffer holding the rows of `value`."""
    return list(np.asarray(value, dtype=dtype))


def ta_size(items: list) -> np.int64:
    return np.int64(len(items))


def _read_source(args, attrs) -> str | None:
    """A dense array is read by plain indexing; others call ta_read, which checks."""
    return f"{args[0]}[{args[1]}]" if attrs.get("dense") else None


def _register(op: Op) -> Op:
    return OPS[op.name] if op.name in OPS else register(op)


def _typed_by_caller(types, attrs) -> TensorType:
    raise AssertionError("TensorArray nodes are typed by TensorArray itself, not by infer")


for _op in (
    Op("ta_new", _typed_by_caller, ta_new),
    Op("ta_write", _typed_by_caller, ta_write, inplace=True),
    Op("ta_unstack", _typed_by_caller, ta_unstack),
    Op("ta_read", _typed_by_caller, ta_read, emit=_read_source),
    Op("ta_stack", _typed_by_caller, ta_stack),
    Op("ta_size", _typed_by_caller, ta_size, emit=lambda args, attrs: f"np.int64(len({args[0]}))"),
):
    _register(_op)


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


class TensorArray:
    """A list of tensors of one dtype: `write`, `read`, `stack`, `unstack`, `size`."""

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
            return ta_stack(self._items, **attrs)
        lead = None if self.dynamic_size else self._size
        shape = None if self.element_shape is None else (lead, *self.element_shape)
        return _stage("ta_stack", (self._handle,), attrs, TensorType(self.dtype, shape), "stack")

    def unstack(self, value: Any) -> TensorArray:
        """A TensorArray holding the rows of `value`."""
        type_ = _element_type(value)
        if self._handle is None:
            new = TensorArray(self.dtype, 0, self.dynamic_size, self.element_shape)
            new._items = ta_unstack(value, self.dtype)
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

    def size(self) -> Any:
        """The number of elements, as an int64."""
        if self._handle is None:
            return ta_size(self._items)
        return _stage("ta_size", (self._handle,), {}, TensorType(np.int64, ()), "size")

    def __repr__(self) -> str:
        mode = "staged" if self._handle is not None else f"{len(self._items)} elements"
        return f"<TensorArray {self.dtype.name} {mode}>"
