"""The leaves that flow through staged control flow: branch results and loop variables.

A leaf is a Tensor, a concrete value (which becomes a constant), or an object
that stages as a Tensor: anything with `__autograph_tensor__()` (a Variable is
read; a TensorArray gives its handle) and, to come back as the same kind of
object, `__autograph_rebuild__(tensor)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.graph import Graph, Node
from runtime.ir.origin import user_origin
from runtime.ir.structure import TreeDef
from runtime.ir.types import TensorType
from runtime.tracing.record import constant_node, stage
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import current_graph

__all__ = ["stage_leaf", "leaf_names", "rebuild", "as_tensor", "as_tuple", "predicate", "where"]

_BOOL_SCALAR = TensorType(np.bool_, ())


def stage_leaf(value: Any, graph: Graph, what: str) -> Node:
    """The node carrying one leaf inside `graph` (call under `building(graph)`)."""
    if hasattr(value, "__autograph_tensor__") and not isinstance(value, Tensor):
        value = value.__autograph_tensor__()
    if isinstance(value, Tensor):
        return graph.own(value.node)
    array = np.asarray(value)
    if array.dtype == object:
        raise StagingError(
            f"{where()}{what} is a {type(value).__name__}, which cannot be carried through "
            f"tensor-dependent control flow; use tensors, NumPy values or Python numbers."
        )
    return constant_node(array, graph)


def leaf_names(tree: TreeDef, names: Sequence[str] | None, default: str) -> list[str]:
    """A readable name per leaf: `names[i]` for the top-level items when they line up."""
    if names and tree.kind in ("tuple", "list") and len(tree.children) == len(names):
        result = []
        for name, child in zip(names, tree.children):
            count = child.num_leaves
            result += [name] if count == 1 else [f"{name}[{k}]" for k in range(count)]
        return result
    if names and len(names) == 1 and tree.kind == "leaf":
        return [names[0]]
    count = tree.num_leaves
    return [default] if count == 1 else [f"{default} {k}" for k in range(count)]


def where() -> str:
    """"file:line: " of the user's line being traced, or "" (the prefix of a staging error)."""
    origin = user_origin(3)
    return f"{origin}: " if origin is not None else ""


def rebuild(template: Any, tensor: Tensor) -> Any:
    if hasattr(template, "__autograph_rebuild__"):
        return template.__autograph_rebuild__(tensor)
    return tensor


def as_tensor(value: Any) -> Any:
    if isinstance(value, Tensor) or not hasattr(value, "__autograph_tensor__"):
        return value
    if current_graph() is None:
        return value
    return value.__autograph_tensor__()


def as_tuple(result: Any, count: int) -> tuple:
    if isinstance(result, (tuple, list)) and not hasattr(result, "_fields"):
        return tuple(result)
    if count == 1:
        return (result,)
    raise StagingError(f"the loop body must return {count} loop variables, got {result!r}")


def predicate(node: Node, graph: Graph) -> Node:
    """`node` as the bool[] scalar a cond's predicate and a while's test must be (`Graph.verify`).

    Python tests truthiness; for a one-element array that is `bool(a.reshape(()))`,
    which is what the graph computes, so backends need no truthiness rule of their own."""
    if node.type == _BOOL_SCALAR:
        return node
    value = Tensor(node, graph)
    if node.type.shape != ():
        value = stage("reshape", (value, ()), {})
    if value.dtype != np.bool_:
        value = stage("cast", (value,), {"dtype": np.dtype(np.bool_)})
    return value.node
