"""NumPy dispatch for Tensors: ufuncs, array functions, Python operators, indexing, methods.

Importing this module installs them on `Tensor`: NumPy hands every ufunc and
array function applied to a Tensor back through `__array_ufunc__` /
`__array_function__`, Python operators stage the ufunc they mean (`a + 1`
stages `np.add(a, 1)`; Python scalars stay weak, as NumPy 2 promotes them),
`t[key]` stages "index", and array methods are the NumPy functions
(`t.sum(axis=0)` is `np.sum(t, axis=0)`). `runtime.tracing` imports it, so a
Tensor never exists without them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ops.calls import staging_error
from runtime.ops.elementwise import UFUNCS, has_methods, ufunc_op_name
from runtime.tracing.creation import any_staged, asarray
from runtime.tracing.numpy_functions import stage_numpy
from runtime.tracing.record import record, stage
from runtime.tracing.tensor import Tensor

__all__ = ["stage_ufunc", "stage_function", "stage_method", "stage_index", "index_key"]

_UFUNC_METHODS = ("__call__", "reduce", "accumulate", "outer")


def stage_ufunc(ufunc: np.ufunc, method: str, inputs: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """Record `ufunc.method(*inputs, **kwargs)`; a tuple of tensors for multi-output ufuncs."""
    name = ufunc.__name__
    if UFUNCS.get(name) is not ufunc:
        raise staging_error(
            f"the ufunc {name!r} is not a NumPy ufunc and cannot be staged; "
            f"wrap it with ag.py_function, or write it with NumPy functions."
        )
    if kwargs.get("out") is not None:
        raise staging_error(
            f"np.{name}(..., out=...) cannot be staged: staged tensors are immutable. "
            f"Assign the result instead: `y = np.{name}(...)`."
        )
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    if method not in _UFUNC_METHODS or (method != "__call__" and not has_methods(ufunc)):
        raise staging_error(
            f"np.{name}.{method} cannot be staged; supported: np.{name}(...)"
            + (", .reduce, .accumulate, .outer" if has_methods(ufunc) else "")
        )
    if method == "__call__" and ufunc.nout > 1:
        return tuple(stage(ufunc_op_name(ufunc, output=k), inputs, kwargs) for k in range(ufunc.nout))
    return stage(ufunc_op_name(ufunc, method), inputs, kwargs)


def stage_function(func: Callable, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """Stage a NumPy function through the table in `runtime.tracing.numpy_functions`."""
    return stage_numpy(func, args, kwargs)


def stage_method(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """A Tensor method that mirrors `np.<name>` (t.sum(axis=0) is np.sum(t, axis=0))."""
    function = getattr(np, name)
    if isinstance(function, np.ufunc):
        return stage_ufunc(function, "__call__", args, kwargs)
    return stage_numpy(function, args, kwargs)


def stage_index(tensor: Any, key: Any) -> Any:
    """Record `tensor[key]`."""
    return stage("index", (tensor, index_key(key)), {})


def index_key(key: Any) -> Any:
    """`key` with its lists as index arrays, as NumPy reads them (for reads and item assignment alike)."""
    if isinstance(key, tuple):
        return tuple(_array_index(k) for k in key)
    return _array_index(key)


def _array_index(item: Any) -> Any:
    """A list in a key is an index array (`x[[0, 2]]`), staged when it holds tensors."""
    if not isinstance(item, list):
        return item
    return asarray(item) if any_staged(item) else np.asarray(item)


# -- what is installed on Tensor ---------------------------------------------
def _binary(ufunc: np.ufunc) -> tuple[Callable, Callable]:
    """`self op other` and the reflected `other op self`, staged as the ufunc.

    `None` is no operand of arithmetic: Python's TypeError, while tracing (a
    staged `x * None` would fail only when the graph runs). A None is most
    often a dimension unknown while tracing (`n = x.shape[0]`), which the
    trace then reports as such (autograph.tracing.unknown_dims).
    """

    def forward(self: Tensor, other: Any) -> Any:
        if other is None:
            return NotImplemented
        return stage_ufunc(ufunc, "__call__", (self, other), {})

    def reflected(self: Tensor, other: Any) -> Any:
        if other is None:
            return NotImplemented
        return stage_ufunc(ufunc, "__call__", (other, self), {})

    return forward, reflected


def _comparison(ufunc: np.ufunc) -> Callable:
    """`self op other` staged as the ufunc; `t == None` compares elementwise, as NumPy does."""

    def forward(self: Tensor, other: Any) -> Any:
        return stage_ufunc(ufunc, "__call__", (self, other), {})

    return forward


def _unary(ufunc: np.ufunc) -> Callable:
    def method(self: Tensor) -> Any:
        return stage_ufunc(ufunc, "__call__", (self,), {})

    return method


def _method(name: str) -> Callable:
    """A method that is `np.<name>(self, ...)`."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return stage_method(name, (self, *args), kwargs)

    method.__name__ = name
    method.__doc__ = f"np.{name}(self, ...), staged."
    return method


def _array_ufunc(self: Tensor, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    return stage_ufunc(ufunc, method, inputs, kwargs)


def _array_function(self: Tensor, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    return stage_function(func, args, kwargs)


def _reshape(self: Tensor, *shape: Any, **kwargs: Any) -> Tensor:
    new_shape = shape[0] if len(shape) == 1 else shape
    return stage_method("reshape", (self, new_shape), kwargs)


def _transpose(self: Tensor, *axes: Any) -> Tensor:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return stage_method("transpose", (self, tuple(axes)) if axes else (self,), {})


def _size(self: Tensor) -> int | Tensor:
    """The element count: a Python int when the shape is fully known, else staged."""
    if self.type.is_fully_defined:
        return int(np.prod(self.shape, dtype=np.int64))
    return stage_method("size", (self,), {})


def _astype(self: Tensor, dtype: Any, copy: bool = True) -> Tensor:
    return record("cast", (self,), {"dtype": np.dtype(dtype)})


_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "matmul": np.matmul,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor, "lshift": np.left_shift,
    "rshift": np.right_shift,
}
_COMPARISONS = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal,
}
_UNARY = {"neg": np.negative, "pos": np.positive, "invert": np.invert, "abs": np.absolute}
_METHODS = (
    "sum", "mean", "prod", "max", "min", "argmax", "argmin", "any", "all", "std", "var", "cumsum",
    "cumprod", "clip", "round", "squeeze", "ravel", "copy", "repeat", "take", "dot", "trace", "nonzero",
    "swapaxes", "argsort", "diagonal", "searchsorted",
)


def _install(cls: type) -> None:
    for name, ufunc in _BINARY.items():
        forward, reflected = _binary(ufunc)
        setattr(cls, f"__{name}__", forward)
        setattr(cls, f"__r{name}__", reflected)
    for name, ufunc in _COMPARISONS.items():
        setattr(cls, f"__{name}__", _comparison(ufunc))
    for name, ufunc in _UNARY.items():
        setattr(cls, f"__{name}__", _unary(ufunc))
    for name in _METHODS:
        setattr(cls, name, _method(name))
    cls.conj = cls.conjugate = _method("conjugate")
    cls.real = property(_method("real"))
    cls.imag = property(_method("imag"))
    cls.mT = property(_method("matrix_transpose"))
    cls.size = property(_size)
    cls.__array_ufunc__ = _array_ufunc
    cls.__array_function__ = _array_function
    cls.__getitem__ = stage_index
    cls.reshape = _reshape
    cls.transpose = _transpose
    cls.astype = _astype


_install(Tensor)
