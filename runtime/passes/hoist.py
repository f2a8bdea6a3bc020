"""Loop-invariant code motion: compute once, before a loop, what no iteration changes.

    while i < n:                        wt = np.transpose(w)
        g = x @ np.transpose(w)   ->    while i < n:
        ...                                 g = x @ wt

A node of a while's body (or test) moves out in front of the while node when
every input is defined outside the loop (a capture, a constant, or a node
moved already) and running it there cannot change what the program does:

- it is pure: not effectful, not stateful, not in-place, not a random draw,
  not control flow, and computes no handle (object dtype);
- it cannot raise or warn (`cannot_fail`). A loop may run zero times: a hoisted
  `n // d` with `d == 0`, or an out-of-bounds index, would fail (or warn) where
  the original never ran the op. So only ops that fail on nothing their
  statically known input types allow are moved: reshaping and transposing
  views, comparisons, logical and bitwise ops, safe casts, and integer
  arithmetic on arrays (arrays wrap around silently; NumPy scalars warn on
  overflow, so 0-d ones stay). Every input and output shape must be fully
  known, so broadcasting was checked when the graph was traced.

Moving a node out of a nested loop's body puts it in the enclosing body, one
level per run of the pass. Cond branches are left alone: their nodes run only
on one side of an if.
"""

from __future__ import annotations

import numpy as np

from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS
from runtime.ir.subgraphs import walk
from runtime.ir.types import TensorType
from runtime.ops.registry import OPS
from runtime.passes.rewrite import _Copier

__all__ = ["hoist_invariants", "invariant_nodes", "cannot_fail"]

# Ops that never raise or warn once their input types are fixed and fully known.
_SHAPE_OPS = frozenset({
    "transpose", "matrix_transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze", "ravel",
    "reshape", "broadcast_to", "flip", "fliplr", "flipud", "rot90", "atleast_1d", "atleast_2d",
    "atleast_3d", "copy", "real", "imag", "conjugate", "shape", "size", "ndim",
})
_NO_FP_ERRORS = frozenset({
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "signbit",
})
_BITWISE = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor", "invert"})
# Wrap around silently on integer arrays (never on 0-d values: NumPy scalars warn on overflow).
_INTEGER_ARRAY_ARITHMETIC = frozenset({"add", "subtract", "multiply", "negative", "maximum", "minimum", "absolute"})


def _known(type_: object) -> bool:
    return isinstance(type_, TensorType) and type_.dtype != object and type_.is_fully_defined


def cannot_fail(node: Node) -> bool:
    """Whether running `node` on values of its input types can neither raise nor warn."""
    if not _known(node.type) or not all(_known(i.type) for i in node.inputs):
        return False
    op = node.op
    if op in _SHAPE_OPS:
        return True
    dtypes = [i.type.dtype for i in node.inputs]
    if op in _NO_FP_ERRORS:
        return all(d.kind in "biuf" for d in dtypes)
    if op in _BITWISE:
        return all(d.kind in "biu" for d in dtypes)
    if op in _INTEGER_ARRAY_ARITHMETIC:
        return all(d.kind in "iu" for d in dtypes) and node.type.rank >= 1 and node.type.dtype.kind in "iu"
    if op == "cast":
        return len(dtypes) == 1 and np.can_cast(dtypes[0], node.type.dtype, "safe")
    return False


def _movable(node: Node) -> bool:
    if node.op in ("input", "capture", "constant", "getitem") or node.op in SUBGRAPH_FIELDS:
        return False
    op = OPS.get(node.op)
    if op is None or op.effectful or op.stateful or op.inplace or node.op.startswith("random_"):
        return False
    return cannot_fail(node)


def invariant_nodes(loop: Graph) -> list[Node]:
    """The nodes of a while's test or body that can move out in front of the while, in order."""
    moved: set[Node] = set()
    found = []
    for node in loop.nodes:
        if node.op == "input" or not _movable(node):
            continue
        if all(i.op in ("capture", "constant") or i in moved for i in node.inputs):
            moved.add(node)
            found.append(node)
    return found


def hoist_invariants(graph: Graph, graphs: list[Graph] | None = None) -> Graph:
    """`graph` with loop-invariant nodes computed before their loops (the same graph if there are none)."""
    graphs = walk(graph) if graphs is None else graphs
    plan: dict[Node, list[Node]] = {}
    for sub in graphs:
        for node in sub.nodes:
            if node.op == "while":
                found = invariant_nodes(node.attrs["cond"]) + invariant_nodes(node.attrs["body"])
                if found:
                    plan[node] = found
    if not plan:
        return graph
    return _Hoister(plan).copy(graph, None, {})


class _Hoister(_Copier):
    """A copy where each planned while node is preceded by copies of its invariant nodes."""

    def __init__(self, plan: dict[Node, list[Node]]) -> None:
        super().__init__(None, None, {})
        self.plan = plan
        self.hoisted: dict[Node, Node] = {}  # old loop node -> its copy in front of the loop

    def copy_control(self, node: Node, new: Graph, mapping: dict[Node, Node]) -> Node:
        for moved in self.plan.get(node, ()):
            inputs = tuple(self._outside(i, new, mapping) for i in moved.inputs)
            self.hoisted[moved] = new.add_node(moved.op, inputs, moved.attrs, moved.type, moved.origin, moved.name)
        return super().copy_control(node, new, mapping)

    def _outside(self, value: Node, new: Graph, mapping: dict[Node, Node]) -> Node:
        """A hoisted node's input as a node of the graph the loop is in."""
        if value.op == "capture":
            return mapping[value.attrs["outer"]]
        if value.op == "constant":
            return new.add_node("constant", (), value.attrs, value.type, value.origin, value.name)
        return self.hoisted[value]

    def copy_node(self, node: Node, new: Graph, mapping: dict[Node, Node], outer: dict[Node, Node]) -> Node:
        hoisted = self.hoisted.get(node)
        if hoisted is not None:
            return new.own(hoisted)
        return super().copy_node(node, new, mapping, outer)
