"""Constant folding: compute at compile time what depends only on constants.

    a = np.int64(2) * np.int64(3)
    b = x + a            ->   b = x + np.int64(6)

A node is folded when every input is a constant, its op is pure (not
effectful, not stateful, not an in-place or handle op, not control flow),
NumPy computes it without a warning or an error (those stay at run time,
where the user sees them), the result has the dtype the graph inferred, and
it is small (at most `MAX_ELEMENTS` elements: a folded `np.zeros((1000,
1000))` would only make the program bigger).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS
from runtime.ir.subgraphs import walk
from runtime.ir.types import TensorType
from runtime.ops.registry import OPS
from runtime.passes.rewrite import copies_as_is, rewrite

__all__ = ["fold_constants", "MAX_ELEMENTS"]

MAX_ELEMENTS = 1024


def _foldable(node: Node, inputs: tuple[Node, ...]) -> bool:
    if not inputs:
        return False
    for i in inputs:  # first: most nodes have an input that is no constant
        if i.op != "constant" or i.type.dtype == object:
            return False
    if node.op in SUBGRAPH_FIELDS or not isinstance(node.type, TensorType) or node.type.dtype == object:
        return False
    op = OPS.get(node.op)
    return op is not None and not (op.effectful or op.stateful or op.inplace)


def _evaluate(node: Node, inputs: tuple[Node, ...]) -> Any:
    """The op's value on the constants, or None when it must stay a run-time computation."""
    op = OPS[node.op]
    values = [i.attrs["value"] for i in inputs]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = op.impl(*values, **node.attrs)
    except Exception:  # noqa: BLE001 - any failure is reported when the graph runs
        return None
    if not isinstance(result, (np.ndarray, np.generic)):
        return None
    array = np.asarray(result)
    type_: TensorType = node.type  # type: ignore[assignment]
    if array.size > MAX_ELEMENTS or not type_.is_compatible_with(array.dtype, array.shape):
        return None
    return result


def fold_constants(graph: Graph, graphs: list[Graph] | None = None) -> Graph:
    """`graph` with pure computations on constants replaced by their values.

    A graph where no node has only constant inputs has nothing to fold (a
    node becomes a constant only by folding) and is returned as it is.
    `graphs` is `walk(graph)`, when the caller has it already.
    """
    graphs = walk(graph) if graphs is None else graphs
    if not any(
        _foldable(node, node.inputs) for sub in graphs for node in sub.nodes
    ) and copies_as_is(graph, graphs):
        return graph

    def hook(node: Node, inputs: tuple[Node, ...], new: Graph) -> Node | None:
        if not _foldable(node, inputs):
            return None
        value = _evaluate(node, inputs)
        if value is None:
            return None
        type_ = TensorType(np.asarray(value).dtype, np.shape(value))
        return new.add_node("constant", (), {"value": value}, type_, node.origin, node.name)

    return rewrite(graph, hook)
