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

A Variable created inside a trace from a staged value (`ag.Variable(2.0 * x)`)
has no value until the graph runs: the trace records an "initialize_variable"
node, effectful and ordered before every later read, that stores the value
the first time it runs and does nothing afterwards.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np

from runtime.ir.errors import FailedPreconditionError, StagingError
from runtime.ir.origin import user_origin
from runtime.ir.types import TensorType
from runtime.ops.state import stored_value
from runtime.tracing.record import record
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import current_graph

__all__ = ["Variable", "creation_scope"]

_SCOPES: ContextVar[tuple[list, ...]] = ContextVar("autograph_variable_scopes", default=())


def creation_scope() -> _CreationScope:
    """Collect every Variable created inside the `with` block (nested scopes all see it)."""
    return _CreationScope()


class _CreationScope:
    """`creation_scope`'s context manager (a class: every trace enters one)."""

    __slots__ = ("created", "_token")

    def __enter__(self) -> list:
        self.created: list = []
        self._token = _SCOPES.set((*_SCOPES.get(), self.created))
        return self.created

    def __exit__(self, *exc_info: object) -> None:
        _SCOPES.reset(self._token)




class Variable:
    """Mutable state: `assign`, `assign_add`, `assign_sub`, `numpy()`, `read_value()`."""

    __array_priority__ = 1001

    def __init__(self, initial_value: Any, dtype: Any = None, name: str | None = None) -> None:
        if callable(initial_value):
            initial_value = initial_value()
        self.name = name or "Variable"
        self._origin = None
        if isinstance(initial_value, Variable) and current_graph() is None:
            initial_value = initial_value._current()
        if _staged(initial_value):
            self._init_staged(initial_value, dtype)
        else:
            self._value = np.array(initial_value, dtype=dtype)
            self._type = TensorType(self._value.dtype, self._value.shape)
        for scope in _SCOPES.get():
            scope.append(self)

    def _init_staged(self, initial_value: Any, dtype: Any) -> None:
        """No value yet: the trace records the node that sets it when the graph first runs."""
        self._origin = user_origin(3)
        tensor = initial_value if isinstance(initial_value, Tensor) else initial_value.__autograph_tensor__()
        if tensor.shape is None or None in tensor.shape:
            where = f" at {self._origin}" if self._origin is not None else ""
            raise StagingError(
                f"a Variable created{where} from a staged value of shape {tensor.type.shape_str()} "
                f"needs a fully known shape; give the value a fixed shape, or create the Variable "
                f"from a concrete value and assign the computed one."
            )
        if dtype is not None:
            tensor = tensor.astype(dtype)
        self._value = None
        self._type = tensor.type
        attrs = {"ref": weakref.ref(self), "name": self.name, "origin": self._origin}
        record("initialize_variable", (tensor,), attrs, name=f"{_hint(self.name)}_init")

    def _current(self) -> np.ndarray:
        if self._value is None:
            where = f" created at {self._origin}" if self._origin is not None else ""
            raise FailedPreconditionError(
                f"the Variable '{self.name}'{where} has no value yet: its initial value is computed "
                f"by the function that created it, which has not run yet. Call that function first."
            )
        return self._value

    # -- state ----------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        return self._type.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self._type.shape

    @property
    def is_initialized(self) -> bool:
        """False only for a Variable made from a staged value whose graph has not run yet."""
        return self._value is not None

    @property
    def ndim(self) -> int:
        return len(self._type.shape)

    def numpy(self) -> Any:
        """The current value (a copy; 0-d values as NumPy scalars)."""
        value = self._current()
        return value[()] if value.ndim == 0 else value.copy()

    def _store(self, value: Any, mode: str) -> None:
        self._value = stored_value(self, value, mode)

    def __copy__(self) -> Variable:
        """The Variable itself, as in TensorFlow: a copy would be a second Variable, which
        only `copy.deepcopy` makes."""
        return self

    def __deepcopy__(self, memo: dict) -> Variable:
        """A new Variable holding the current value, made as `Variable(v)` makes one: inside a
        trace it is created there, under the rule that only a first trace may create Variables."""
        copied = Variable(self if current_graph() is not None else self._current(), self.dtype, self.name)
        memo[id(self)] = copied
        return copied

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
            from runtime.tracing.eager_tape import active_recorder

            recorder = active_recorder()  # an eager GradientTape records every read
            return self._current() if recorder is None else recorder.read_variable(self)
        return self.__autograph_tensor__()

    def _assign(self, value: Any, mode: str) -> Variable:
        if current_graph() is None:
            value = value._current() if isinstance(value, Variable) else value
            self._check_dtype(np.asarray(value).dtype)  # as in a trace: never a silent truncation
            self._store(value, mode)
            return self
        self._check_dtype(np.asarray(value).dtype if not _staged(value) else _staged_dtype(value))
        attrs = {"ref": weakref.ref(self), "name": self.name, "origin": user_origin(3), "mode": mode}
        record("assign_variable", (value,), attrs, name=f"{_hint(self.name)}_{mode}")
        return self

    def _check_dtype(self, value_dtype: np.dtype) -> None:
        if not np.can_cast(value_dtype, self.dtype, "same_kind"):
            raise StagingError(
                f"{_where(4)}cannot assign a {value_dtype.name} value to the {self.dtype.name} "
                f"Variable '{self.name}'; cast it first with .astype(np.{self.dtype.name})."
            )

    def assign(self, value: Any) -> Variable:
        return self._assign(value, "assign")

    def assign_add(self, value: Any) -> Variable:
        return self._assign(value, "add")

    def assign_sub(self, value: Any) -> Variable:
        return self._assign(value, "sub")

    # -- NumPy and Python protocols --------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.array(self._current(), dtype=dtype, copy=True if copy else None)

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
        if not self.shape:
            raise TypeError("len() of a 0-d Variable")
        return self.shape[0]

    def __getitem__(self, index: Any) -> Any:
        return self._read()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._read())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        value = "<not yet initialised>" if self._value is None else repr(self._value)
        return f"<Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}, numpy={value}>"


def _hint(name: str) -> str:
    return name if name.isidentifier() else "variable"


def _where(depth: int = 3) -> str:
    origin = user_origin(depth)
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
