"""State ops: TensorArray buffers and Variables.

A TensorArray is a handle (`object` dtype) holding a Python list of NumPy
values; `ta_write` may change its list in place (`inplace`: the compiler
passes a copy when the old handle is still used). A Variable op holds a weak
reference to the Variable object (attrs "ref", "name", "origin") and calls
its storage methods (`_current()`, `_store(value, mode)`, `_value`, `_type`,
`dtype`): the graph never keeps a Variable alive, and one that is gone is a
FailedPreconditionError naming it.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import FailedPreconditionError, InvalidArgumentError
from runtime.ir.origin import Origin
from runtime.ir.types import Shape, TensorType
from runtime.ops.registry import Op, register

__all__ = ["HANDLE", "UNIT", "stored_value"]

HANDLE = TensorType(np.dtype(object), ())  # a TensorArray's handle
UNIT = TensorType(np.dtype(object), ())  # what an effect returns: nothing a program reads


def _unit(types: Sequence[Any], attrs: Mapping[str, Any]) -> TensorType:
    return UNIT


# -- TensorArray: the handle is a Python list of NumPy values -------------------
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


def ta_gather(items: list, indices: Any, dtype: np.dtype, element_shape: Shape) -> np.ndarray:
    """The elements at `indices`, stacked (TensorArray.gather)."""
    chosen = [ta_read(items, operator.index(i)) for i in np.asarray(indices).reshape(-1)]
    return ta_stack(chosen, dtype, element_shape)


def ta_scatter(items: list, indices: Any, value: Any, dynamic: bool, dtype: np.dtype) -> list:
    """Row k of `value` stored at `indices[k]` (TensorArray.scatter); returns the same list."""
    indices = np.asarray(indices).reshape(-1)
    value = np.asarray(value)
    if value.ndim == 0 or len(value) != len(indices):
        rows = "a scalar" if value.ndim == 0 else f"{len(value)} rows"
        raise InvalidArgumentError(f"TensorArray.scatter: {len(indices)} indices but the value has {rows}")
    for index, row in zip(indices, value):
        ta_write(items, index, row, dynamic, dtype)
    return items


def ta_concat(items: list, dtype: np.dtype, element_shape: Shape) -> np.ndarray:
    """All elements joined along their first axis (TensorArray.concat)."""
    if not items:
        rest = None if element_shape is None else element_shape[1:]
        if element_shape is None or not element_shape or None in rest:
            raise InvalidArgumentError(
                "cannot concat an empty TensorArray whose element shape is unknown; create it with "
                "element_shape=(None, ...) giving the trailing dimensions"
            )
        return np.zeros((0, *rest), dtype)
    if any(item is None for item in items):
        missing = next(i for i, item in enumerate(items) if item is None)
        raise InvalidArgumentError(f"cannot concat a TensorArray whose element {missing} was never written")
    if any(np.ndim(item) == 0 for item in items):
        raise InvalidArgumentError("TensorArray.concat needs elements of rank >= 1, not scalars; use stack()")
    return np.concatenate(items).astype(dtype, copy=False)


def ta_split(value: Any, lengths: Any, dtype: np.dtype) -> list:
    """A buffer holding consecutive pieces of `value` of the given lengths (TensorArray.split)."""
    value = np.asarray(value, dtype=dtype)
    lengths = np.asarray(lengths).reshape(-1)
    if value.ndim == 0:
        raise InvalidArgumentError("TensorArray.split needs a value of rank >= 1, not a scalar")
    if np.any(lengths < 0) or int(lengths.sum()) != len(value):
        raise InvalidArgumentError(
            f"TensorArray.split: the lengths {lengths.tolist()} must be non-negative and add up to the "
            f"value's first dimension, {len(value)}"
        )
    return np.split(value, np.cumsum(lengths)[:-1])


def _read_source(args, attrs) -> str | None:
    """A dense array is read by plain indexing; others call ta_read, which checks."""
    return f"{args[0]}[{args[1]}]" if attrs.get("dense") else None


def _typed_by_caller(types, attrs) -> TensorType:
    raise AssertionError("TensorArray nodes are typed by TensorArray itself, not by infer")


TA_NEW = register(Op("ta_new", _typed_by_caller, ta_new))
TA_WRITE = register(Op("ta_write", _typed_by_caller, ta_write, inplace=True))
TA_UNSTACK = register(Op("ta_unstack", _typed_by_caller, ta_unstack))
TA_READ = register(Op("ta_read", _typed_by_caller, ta_read, emit=_read_source))
TA_STACK = register(Op("ta_stack", _typed_by_caller, ta_stack))
TA_GATHER = register(Op("ta_gather", _typed_by_caller, ta_gather))
TA_SCATTER = register(Op("ta_scatter", _typed_by_caller, ta_scatter, inplace=True))
TA_CONCAT = register(Op("ta_concat", _typed_by_caller, ta_concat))
TA_SPLIT = register(Op("ta_split", _typed_by_caller, ta_split))
TA_SIZE = register(Op("ta_size", _typed_by_caller, ta_size, emit=lambda args, attrs: f"np.int64(len({args[0]}))"))


# -- Variables ---------------------------------------------------------------------
def _deref(ref: weakref.ref, name: str, origin: Origin | None) -> Any:
    variable = ref()
    if variable is None:
        where = f" at {origin}" if origin is not None else ""
        raise FailedPreconditionError(
            f"the Variable '{name}' used{where} no longer exists (it was garbage-collected). Keep "
            f"a reference to it, e.g. as an attribute of the object that owns the function, for "
            f"as long as the function runs."
        )
    return variable


def read_variable(ref: weakref.ref, name: str, origin: Origin | None) -> np.ndarray:
    """The current value of a captured Variable."""
    return _deref(ref, name, origin)._current()


def initialize_variable(value: Any, ref: weakref.ref, name: str, origin: Origin | None) -> None:
    """Give a Variable created from a staged value that value, the first time only."""
    variable = _deref(ref, name, origin)
    if variable._value is None:
        variable._value = np.array(value, dtype=variable.dtype)


def assign_variable(value: Any, ref: weakref.ref, name: str, origin: Origin | None, mode: str) -> None:
    """Store `value` (or add/subtract it) into a captured Variable."""
    variable = _deref(ref, name, origin)
    variable._store(value, mode)


def _read_infer(types, attrs) -> TensorType:
    return _deref(attrs["ref"], attrs["name"], attrs["origin"])._type


READ_VARIABLE = register(Op("read_variable", infer=_read_infer, impl=read_variable, stateful=True))
ASSIGN_VARIABLE = register(Op("assign_variable", infer=_unit, impl=assign_variable, effectful=True))
INITIALIZE_VARIABLE = register(Op("initialize_variable", infer=_unit, impl=initialize_variable, effectful=True))


def stored_value(variable: Any, value: Any, mode: str) -> np.ndarray:
    """What `variable` holds after `assign` (mode "set"), `assign_add` ("add") or `assign_sub`
    ("sub") of `value`: its own shape and dtype, for live and restored Variables alike."""
    value = np.asarray(value)
    if mode == "add":
        value = variable._current() + value
    elif mode == "sub":
        value = variable._current() - value
    if value.shape != variable.shape:
        raise InvalidArgumentError(
            f"cannot assign a value of shape {value.shape} to the Variable '{variable.name}' of "
            f"shape {variable.shape}; a Variable keeps its shape."
        )
    return np.asarray(value, dtype=variable.dtype)
