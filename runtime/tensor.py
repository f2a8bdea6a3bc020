"""Tensor: a symbolic value inside a trace, and `record`, which stages one op.

A Tensor is a handle on a graph node. Python operators and NumPy functions
applied to it record new nodes (see `runtime.ops`); using it where Python
needs a concrete value (`bool`, `int`, an index, iteration) outside converted
code is a StagingError that says what to do instead.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from runtime.concrete_use import (
    COMPREHENSIONS,
    concrete_use_error,
    is_containment_test,
    is_subscript,
)
from runtime.errors import StagingError
from runtime.graph import Graph, Node, leaked_error
from runtime.origin import user_origin
from runtime.trace_context import graph_being_built
from runtime.types import TensorType, dtype_label, type_of

__all__ = ["Tensor", "record", "as_node", "constant_node"]


def _binary(ufunc: np.ufunc) -> tuple[Any, Any]:
    """`self op other` and the reflected `other op self`, staged as the ufunc.

    `None` is no operand of arithmetic: Python's TypeError, while tracing (a
    staged `x * None` would fail only when the graph runs). A None is most
    often a dimension unknown while tracing (`n = x.shape[0]`), which the
    trace then reports as such (autograph.tracing.unknown_dims).
    """

    def forward(self: Tensor, other: Any) -> Any:
        from runtime.ops.dispatch import stage_ufunc

        if other is None:
            return NotImplemented
        return stage_ufunc(ufunc, "__call__", (self, other), {})

    def reflected(self: Tensor, other: Any) -> Any:
        from runtime.ops.dispatch import stage_ufunc

        if other is None:
            return NotImplemented
        return stage_ufunc(ufunc, "__call__", (other, self), {})

    return forward, reflected


def _comparison(ufunc: np.ufunc) -> Any:
    """`self op other` staged as the ufunc; `t == None` compares elementwise, as NumPy does."""

    def forward(self: Tensor, other: Any) -> Any:
        from runtime.ops.dispatch import stage_ufunc

        return stage_ufunc(ufunc, "__call__", (self, other), {})

    return forward


def _unary(ufunc: np.ufunc) -> Any:
    def method(self: Tensor) -> Any:
        from runtime.ops.dispatch import stage_ufunc

        return stage_ufunc(ufunc, "__call__", (self,), {})

    return method


def _method(name: str) -> Any:
    """A method that is `np.<name>(self, ...)`."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        from runtime.ops.dispatch import stage_method

        return stage_method(name, (self, *args), kwargs)

    method.__name__ = name
    method.__doc__ = f"np.{name}(self, ...), staged."
    return method


class Tensor:
    """A staged value: `.dtype`, `.shape` (None when the rank is unknown), `.name`."""

    __slots__ = ("node", "graph", "index", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, node: Node, graph: Graph, index: int | None = None) -> None:
        self.node = node
        self.graph = graph
        self.index = index

    @property
    def type(self) -> TensorType:
        return self.node.type  # type: ignore[return-value]

    @property
    def dtype(self) -> np.dtype:
        return self.type.dtype

    @property
    def shape(self) -> tuple[int | None, ...] | None:
        return self.type.shape

    @property
    def ndim(self) -> int | None:
        return self.type.rank

    @property
    def name(self) -> str:
        return self.node.name

    def __repr__(self) -> str:
        return f'Tensor("{self.name}:0", shape={self.type.shape_str()}, dtype={dtype_label(self.dtype)})'

    __str__ = __repr__

    def __bool__(self) -> bool:
        caller = sys._getframe(1)
        if is_containment_test(caller):  # `x in [1, 2]`: list.__contains__ asks bool(x == item)
            raise concrete_use_error(
                self, "bool", "`in` and `not in` compare a Tensor with each item and test the result as a "
                "Python bool: write np.isin(x, items) (or np.any(x == items)) instead."
            )
        if caller.f_code.co_name in COMPREHENSIONS:  # the `if` of a comprehension
            raise concrete_use_error(
                self, "bool", "The `if` of a comprehension is not converted: write a for loop with an if "
                "(staged), or select with a boolean mask (x[x > 0]) or np.where."
            )
        raise concrete_use_error(
            self, "bool", "Put the condition in converted code (ag.function converts if/while), "
            "or use ag.cond / ag.while_loop.", "if elif while assert"
        )

    def __index__(self) -> int:
        raise concrete_use_error(
            self, "int/index", "Index arrays and tensors with it, and a Python list through "
            "np.stack(the_list)[i]; a number that decides a result's shape (np.linspace's num) "
            "must be a Python int, or use ag.py_function."
        )

    def __int__(self) -> int:
        raise concrete_use_error(
            self, "int", "Cast with t.astype(np.int64) (in converted code int(t) stages that)."
        )

    def __float__(self) -> float:
        raise concrete_use_error(
            self, "float", "Cast with t.astype(np.float64) (in converted code float(t) stages that), "
            "and use NumPy's functions (np.sqrt, not math.sqrt): they stage."
        )

    def __round__(self, ndigits: int | None = None) -> Tensor:
        """round(t) of a 0-d tensor, as of a NumPy scalar: an int64 without digits (Python's
        int), NumPy's rounding in t's dtype with them. Arrays do not round, as in NumPy."""
        if self.shape != ():
            raise TypeError(f"type Tensor of shape {self.type.shape_str()} doesn't define __round__ "
                            f"method (as NumPy arrays); use np.round(t, decimals)")
        if ndigits is None:
            return np.round(self).astype(np.int64)
        return np.round(self, ndigits)

    def __iter__(self):
        raise concrete_use_error(
            self, "iterator", "Iterate over it in a for loop inside converted code (it becomes a staged loop).",
            "for",
        )

    def __len__(self) -> int:
        if self.shape and self.shape[0] is not None:
            return self.shape[0]
        raise concrete_use_error(self, "length", "Use np.shape(t)[0] inside the graph.")

    def __copy__(self) -> Tensor:
        return self

    def __deepcopy__(self, memo: dict) -> Tensor:
        """Itself: a staged value never changes, so a copy is the same value. Copying the node
        would copy its graph, and the copy would belong to no trace (`best = deepcopy(params)`)."""
        return self

    def __hash__(self) -> int:
        """Refused, as TensorFlow refuses: `x in {1, 2}` would compare identities and be False
        whatever x holds when the graph runs. A TypeError, as for any unhashable value."""
        if is_containment_test(sys._getframe(1)):
            fix = "Write np.isin(x, items) (or np.any(x == items)) to test membership in the graph."
        else:
            fix = "Key the dict or set by a Python value, or by id(t) for the Tensor object itself."
        staged = concrete_use_error(self, "set member or dict key", fix)
        if isinstance(staged, TypeError):  # leaked out of its trace
            raise staged
        raise TypeError(str(staged)) from None

    # -- NumPy protocols: every ufunc and supported NumPy function stages ----
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        from runtime.ops.dispatch import stage_ufunc

        return stage_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        from runtime.ops.dispatch import stage_function

        return stage_function(func, args, kwargs)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        caller = sys._getframe(1)
        # `table[t]` of a NumPy array the converter did not rewrite, or `table.take(t)`
        if is_subscript(caller) or (dtype is not None and ".take(" in _user_line()):
            raise concrete_use_error(
                self, "NumPy array index",
                "NumPy indexed a concrete array with it, and NumPy's indexing cannot stage. Make the array "
                "a graph constant first: ag.constant(table)[i]. (An array read from a global, a closure "
                "or an attribute, TABLE[i] or self.table[i] in converted code, stages by itself, and "
                "so does np.take(TABLE, i).)",
            )
        # np.float32(t) asks for an array of its dtype: the cast a program meant stages as astype
        cast = "" if dtype is None else f" To cast it, write .astype(np.{np.dtype(dtype).name}) on it."
        raise concrete_use_error(
            self, "NumPy array",
            f"NumPy made an array of it (np.asarray, np.array, or a scalar type such as np.float64(t)).{cast} "
            "Apply NumPy functions to it instead (they stage), or use ag.py_function.",
        )

    # -- Python operators (a + 1 stages np.add(a, 1); Python scalars stay weak) --
    __add__, __radd__ = _binary(np.add)
    __sub__, __rsub__ = _binary(np.subtract)
    __mul__, __rmul__ = _binary(np.multiply)
    __truediv__, __rtruediv__ = _binary(np.divide)
    __floordiv__, __rfloordiv__ = _binary(np.floor_divide)
    __mod__, __rmod__ = _binary(np.remainder)
    __pow__, __rpow__ = _binary(np.power)
    __matmul__, __rmatmul__ = _binary(np.matmul)
    __and__, __rand__ = _binary(np.bitwise_and)
    __or__, __ror__ = _binary(np.bitwise_or)
    __xor__, __rxor__ = _binary(np.bitwise_xor)
    __lshift__, __rlshift__ = _binary(np.left_shift)
    __rshift__, __rrshift__ = _binary(np.right_shift)
    __eq__ = _comparison(np.equal)  # type: ignore[assignment]
    __ne__ = _comparison(np.not_equal)  # type: ignore[assignment]
    __lt__ = _comparison(np.less)
    __le__ = _comparison(np.less_equal)
    __gt__ = _comparison(np.greater)
    __ge__ = _comparison(np.greater_equal)
    __neg__ = _unary(np.negative)
    __pos__ = _unary(np.positive)
    __invert__ = _unary(np.invert)
    __abs__ = _unary(np.absolute)

    def __divmod__(self, other: Any) -> tuple[Tensor, Tensor]:
        return (self // other, self % other)

    def __rdivmod__(self, other: Any) -> tuple[Tensor, Tensor]:
        return (other // self, other % self)

    def __getitem__(self, key: Any) -> Tensor:
        from runtime.ops.indexing import stage_index

        return stage_index(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        raise concrete_use_error(
            self, "mutable array", "Staged tensors are immutable: build a new one, e.g. with np.where, "
            "or use an ag.TensorArray / ag.Variable."
        )

    # -- NumPy array methods ----------------------------------------------
    sum = _method("sum")
    mean = _method("mean")
    prod = _method("prod")
    max = _method("max")
    min = _method("min")
    argmax = _method("argmax")
    argmin = _method("argmin")
    any = _method("any")
    all = _method("all")
    std = _method("std")
    var = _method("var")
    cumsum = _method("cumsum")
    cumprod = _method("cumprod")
    clip = _method("clip")
    round = _method("round")
    squeeze = _method("squeeze")
    ravel = _method("ravel")
    copy = _method("copy")
    repeat = _method("repeat")
    take = _method("take")
    dot = _method("dot")
    trace = _method("trace")
    nonzero = _method("nonzero")
    swapaxes = _method("swapaxes")
    conj = _method("conjugate")
    conjugate = _method("conjugate")
    argsort = _method("argsort")
    diagonal = _method("diagonal")
    searchsorted = _method("searchsorted")

    @property
    def real(self) -> Tensor:
        return _method("real")(self)

    @property
    def imag(self) -> Tensor:
        return _method("imag")(self)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def flatten(self, order: str = "C") -> Tensor:
        return self.ravel(order)

    def reshape(self, *shape: Any, **kwargs: Any) -> Tensor:
        from runtime.ops.dispatch import stage_method

        new_shape = shape[0] if len(shape) == 1 else shape
        return stage_method("reshape", (self, new_shape), kwargs)

    def transpose(self, *axes: Any) -> Tensor:
        from runtime.ops.dispatch import stage_method

        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return stage_method("transpose", (self, tuple(axes)) if axes else (self,), {})

    @property
    def T(self) -> Tensor:
        return self.transpose()

    @property
    def mT(self) -> Tensor:
        from runtime.ops.dispatch import stage_method

        return stage_method("matrix_transpose", (self,), {})

    @property
    def size(self) -> int | Tensor:
        """The element count: a Python int when the shape is fully known, else staged."""
        if self.type.is_fully_defined:
            return int(np.prod(self.shape, dtype=np.int64))
        from runtime.ops.dispatch import stage_method

        return stage_method("size", (self,), {})

    def astype(self, dtype: Any, copy: bool = True) -> Tensor:
        return record("cast", (self,), {"dtype": np.dtype(dtype)})

    def item(self, *args: Any) -> Any:
        raise concrete_use_error(
            self, "scalar (.item())", "Keep computing with the tensor (index it: t[()] or t[i]), "
            "or use ag.py_function for code that needs Python numbers."
        )

    def tolist(self) -> Any:
        raise concrete_use_error(self, "list (.tolist())", "Use ag.py_function for code that needs Python lists.")


def _user_line() -> str:
    """The text of the user's innermost line (generated code maps back), or ""."""
    origin = user_origin(2)
    return origin.text if origin is not None else ""


def constant_node(value: Any, graph: Graph) -> Node:
    """A "constant" node for a concrete value (NumPy's default dtypes for Python numbers).

    A caller's writable array is copied: the trace keeps the value it saw, as a
    rebound global keeps it, rather than following later in-place changes."""
    array = np.asarray(value)
    if array is value and array.flags.writeable:
        array = array.copy()
    return graph.add_node("constant", (), {"value": array}, type_of(array), name="Const")


def as_node(value: Any, graph: Graph) -> Node:
    """The node for an op input: a Tensor's own node, or a new constant."""
    if isinstance(value, Tensor):
        return value.node
    if hasattr(value, "__autograph_tensor__"):
        return as_node(value.__autograph_tensor__(), graph)
    return constant_node(value, graph)


def record(op: str, inputs: tuple[Any, ...], attrs: dict[str, Any] | None = None, name: str | None = None) -> Tensor:
    """Stage `op` on `inputs` (Tensors or concrete values) in the current graph."""
    from runtime.ops.registry import get_op

    graph = graph_being_built()
    if graph is None:
        for value in inputs:
            if isinstance(value, Tensor):
                used = user_origin(2)
                at = f" at {used}" if used is not None else ""
                raise leaked_error(value.node, "leaked out of its trace", f" It is used{at}, outside any trace.")
        raise StagingError(f"cannot stage {op!r} outside a trace")
    attrs = attrs or {}
    spec = get_op(op)
    nodes = tuple([graph.own(v.node if type(v) is Tensor else as_node(v, graph)) for v in inputs])
    out_type = spec.infer([n.type for n in nodes], attrs)
    node = graph.add_node(op, nodes, attrs, out_type, user_origin(2), name=name)
    return Tensor(node, graph)
