"""Variable: mutable state that survives calls of a compiled graph.

Outside a trace a Variable is a box around a NumPy array. Inside a trace
every read and every assign is a graph node ("read_variable" is stateful,
"assign_variable" effectful), so they run in program order at every call:
an assign followed by a read sees the new value, and reads are never merged
across assigns. Assigns rebind the box to a new array rather than writing
into the old one, so a value read earlier keeps its value.

Graphs hold their Variables weakly (a `weakref.ref` in the node's attrs): a
graph whose Variable was garbage-collected raises FailedPreconditionError
naming the variable and the line that used it.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from runtime.errors import FailedPreconditionError, InvalidArgumentError, StagingError
from runtime.ops.registry import OPS, Op, register
from runtime.origin import Origin, user_origin
from runtime.tensor import Tensor, record
from runtime.trace_context import current_graph
from runtime.types import TensorType

__all__ = ["Variable", "creation_scope"]

_SCOPES: ContextVar[tuple[list, ...]] = ContextVar("autograph_variable_scopes", default=())


@contextmanager
def creation_scope() -> Iterator[list]:
    """Collect every Variable created inside the block (nested scopes all see it)."""
    created: list = []
    token = _SCOPES.set((*_SCOPES.get(), created))
    try:
        yield created
    finally:
        _SCOPES.reset(token)


def _deref(ref: weakref.ref, name: str, origin: Origin | None) -> Variable:
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
    return _deref(ref, name, origin)._value


def assign_variable(value: Any, ref: weakref.ref, name: str, origin: Origin | None, mode: str) -> None:
    """Store `value` (or add/subtract it) into a captured Variable."""
    variable = _deref(ref, name, origin)
    variable._store(value, mode)


def _read_infer(types, attrs) -> TensorType:
    return _deref(attrs["ref"], attrs["name"], attrs["origin"])._type


def _register(op: Op) -> Op:
    return OPS[op.name] if op.name in OPS else register(op)


_UNIT = TensorType(np.dtype(object), ())
_register(Op("read_variable", infer=_read_infer, impl=read_variable, stateful=True))
_register(Op("assign_variable", infer=lambda types, attrs: _UNIT, impl=assign_variable, effectful=True))


class Variable:
    """Mutable state: `assign`, `assign_add`, `assign_sub`, `numpy()`, `read_value()`."""

    __array_priority__ = 1001

    def __init__(self, initial_value: Any, dtype: Any = None, name: str | None = None) -> None:
        if callable(initial_value):
            initial_value = initial_value()
        if isinstance(initial_value, Variable):
            initial_value = initial_value._value
        if isinstance(initial_value, Tensor) or hasattr(initial_value, "__autograph_tensor__"):
            origin = user_origin(2)
            where = f" at {origin}" if origin is not None else ""
            raise StagingError(
                f"a Variable created{where} was given a staged initial value; pass a concrete value "
                f"(a NumPy array or Python number), or create the Variable outside the function."
            )
        self._value = np.array(initial_value, dtype=dtype)
        self.name = name or "Variable"
        self._type = TensorType(self._value.dtype, self._value.shape)
        for scope in _SCOPES.get():
            scope.append(self)

    # -- state ----------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        return self._type.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.shape

    @property
    def ndim(self) -> int:
        return self._value.ndim

    def numpy(self) -> Any:
        """The current value (a copy; 0-d values as NumPy scalars)."""
        return self._value[()] if self._value.ndim == 0 else self._value.copy()

    def _store(self, value: Any, mode: str) -> None:
        value = np.asarray(value)
        if mode == "add":
            value = self._value + value
        elif mode == "sub":
            value = self._value - value
        if value.shape != self._value.shape:
            raise InvalidArgumentError(
                f"cannot assign a value of shape {value.shape} to the Variable '{self.name}' of "
                f"shape {self._value.shape}; a Variable keeps its shape."
            )
        self._value = np.asarray(value, dtype=self._value.dtype)

    # -- reading and writing (staged inside a trace) ---------------------
    def __autograph_tensor__(self) -> Tensor:
        origin = user_origin(2)
        attrs = {"ref": weakref.ref(self), "name": self.name, "origin": origin}
        return record("read_variable", (), attrs, name=_hint(self.name))

    def read_value(self) -> Any:
        """The value: a NumPy value outside a trace, a recorded read inside one."""
        return self._read()

    def _read(self) -> Any:
        if current_graph() is None:
            return self._value
        return self.__autograph_tensor__()

    def _assign(self, value: Any, mode: str) -> Variable:
        if current_graph() is None:
            self._store(value.numpy() if isinstance(value, Variable) else value, mode)
            return self
        value_dtype = np.asarray(value).dtype if not _staged(value) else _staged_dtype(value)
        if not np.can_cast(value_dtype, self.dtype, "same_kind"):
            raise StagingError(
                f"{_where()}cannot assign a {value_dtype.name} value to the {self.dtype.name} "
                f"Variable '{self.name}'; cast it first with .astype(np.{self.dtype.name})."
            )
        attrs = {"ref": weakref.ref(self), "name": self.name, "origin": user_origin(3), "mode": mode}
        record("assign_variable", (value,), attrs, name=f"{_hint(self.name)}_{mode}")
        return self

    def assign(self, value: Any) -> Variable:
        return self._assign(value, "assign")

    def assign_add(self, value: Any) -> Variable:
        return self._assign(value, "add")

    def assign_sub(self, value: Any) -> Variable:
        return self._assign(value, "sub")

    # -- NumPy and Python protocols --------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.array(self._value, dtype=dtype, copy=True if copy else None)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        inputs = tuple(_read_all(v) for v in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        return func(*_read_all(args), **_read_all(kwargs))

    def __bool__(self) -> bool:
        return bool(self._read())

    def __int__(self) -> int:
        return int(self._read())

    def __float__(self) -> float:
        return float(self._read())

    def __index__(self) -> int:
        return operator.index(self._read())

    def __len__(self) -> int:
        return len(self._value)

    def __getitem__(self, index: Any) -> Any:
        return self._read()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._read())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}, numpy={self._value!r}>"


def _hint(name: str) -> str:
    return name if name.isidentifier() else "variable"


def _where() -> str:
    origin = user_origin(3)
    return f"{origin}: " if origin is not None else ""


def _staged(value: Any) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "__autograph_tensor__")


def _staged_dtype(value: Any) -> np.dtype:
    if isinstance(value, Variable):
        return value.dtype
    tensor = value if isinstance(value, Tensor) else value.__autograph_tensor__()
    return tensor.dtype


def _read_all(value: Any) -> Any:
    if isinstance(value, Variable):
        return value._read()
    if isinstance(value, (list, tuple)):
        return type(value)(_read_all(v) for v in value)
    if isinstance(value, dict):
        return {k: _read_all(v) for k, v in value.items()}
    return value


def _binary(op: Any, reflected: bool = False):
    if reflected:
        return lambda self, other: op(_read_all(other), self._read())
    return lambda self, other: op(self._read(), _read_all(other))


for _name, _op in [
    ("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
    ("truediv", operator.truediv), ("floordiv", operator.floordiv), ("mod", operator.mod),
    ("pow", operator.pow), ("matmul", operator.matmul), ("and", operator.and_),
    ("or", operator.or_), ("xor", operator.xor), ("lshift", operator.lshift),
    ("rshift", operator.rshift),
]:
    setattr(Variable, f"__{_name}__", _binary(_op))
    setattr(Variable, f"__r{_name}__", _binary(_op, reflected=True))
for _name, _op in [
    ("lt", operator.lt), ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge),
    ("eq", operator.eq), ("ne", operator.ne),
]:
    setattr(Variable, f"__{_name}__", _binary(_op))
for _name, _op in [("neg", operator.neg), ("pos", operator.pos), ("abs", operator.abs), ("invert", operator.invert)]:
    setattr(Variable, f"__{_name}__", lambda self, _op=_op: _op(self._read()))
