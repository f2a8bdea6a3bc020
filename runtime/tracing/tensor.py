"""Tensor: a symbolic value inside a trace.

A Tensor is a handle on a graph node. Python operators and NumPy functions
applied to it record new nodes (see `runtime.ops`); using it where Python
needs a concrete value (`bool`, `int`, an index, iteration) outside converted
code is a StagingError that says what to do instead.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from runtime.ir.graph import Graph, Node
from runtime.ir.origin import user_origin
from runtime.ir.types import TensorType, dtype_label
from runtime.tracing.concrete_use import (
    COMPREHENSIONS,
    concrete_use_error,
    is_containment_test,
    is_subscript,
)
from runtime.tracing.staged import register_staged_type

__all__ = ["Tensor"]


@register_staged_type
class Tensor:
    """A staged value: `.dtype`, `.shape` (None when the rank is unknown), `.name`.

    Its operators, NumPy protocols and array methods are installed by
    `runtime.tracing.dispatch` (they record ops); what is here needs no op."""

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

    def __divmod__(self, other: Any) -> tuple[Tensor, Tensor]:
        return (self // other, self % other)

    def __rdivmod__(self, other: Any) -> tuple[Tensor, Tensor]:
        return (other // self, other % self)

    def __setitem__(self, key: Any, value: Any) -> None:
        raise concrete_use_error(
            self, "mutable array", "Staged tensors are immutable: build a new one, e.g. with np.where, "
            "or use an ag.TensorArray / ag.Variable."
        )

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def flatten(self, order: str = "C") -> Tensor:
        return self.ravel(order)

    @property
    def T(self) -> Tensor:
        return self.transpose()

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
