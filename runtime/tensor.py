"""Tensor: a symbolic value inside a trace, and `record`, which stages one op.

A Tensor is a handle on a graph node. Python operators and NumPy functions
applied to it record new nodes (see `runtime.ops`); using it where Python
needs a concrete value (`bool`, `int`, an index, iteration) outside converted
code is a StagingError that says what to do instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.errors import StagingError
from runtime.graph import Graph, Node
from runtime.origin import user_origin
from runtime.trace_context import current_graph
from runtime.types import TensorType, type_of

__all__ = ["Tensor", "record", "as_node", "constant_node"]


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
        return f'Tensor("{self.name}:0", shape={self.type.shape_str()}, dtype={self.dtype.name})'

    __str__ = __repr__

    def _concrete_use(self, what: str, fix: str) -> StagingError:
        origin = user_origin(3)
        where = f" at {origin}" if origin is not None else ""
        return StagingError(
            f"a {self.type} Tensor ({self.name}) was used as a Python {what}{where}; its value is "
            f"known only when the graph runs. {fix}"
        )

    def __bool__(self) -> bool:
        raise self._concrete_use(
            "bool", "Put the condition in converted code (ag.function converts if/while), "
            "or use ag.cond / ag.while_loop."
        )

    def __index__(self) -> int:
        raise self._concrete_use("int/index", "Index with the tensor inside the graph, or use ag.py_function.")

    def __int__(self) -> int:
        raise self._concrete_use("int", "Use np.asarray(t, dtype) casts inside converted code.")

    def __float__(self) -> float:
        raise self._concrete_use("float", "Use t.astype(np.float64) inside converted code.")

    def __iter__(self):
        raise self._concrete_use(
            "iterator", "Iterate over it in a for loop inside converted code (it becomes a staged loop)."
        )

    def __len__(self) -> int:
        if self.shape and self.shape[0] is not None:
            return self.shape[0]
        raise self._concrete_use("length", "Use np.shape(t)[0] inside the graph.")

    def __hash__(self) -> int:
        return id(self)


def constant_node(value: Any, graph: Graph) -> Node:
    """A "constant" node for a concrete value (NumPy's default dtypes for Python numbers)."""
    array = np.asarray(value)
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

    graph = current_graph()
    if graph is None:
        raise StagingError(f"cannot stage {op!r} outside a trace")
    attrs = attrs or {}
    spec = get_op(op)
    nodes = tuple(graph.own(as_node(v, graph)) for v in inputs)
    out_type = spec.infer([n.type for n in nodes], attrs)
    node = graph.add_node(op, nodes, attrs, out_type, user_origin(2), name=name)
    return Tensor(node, graph)
