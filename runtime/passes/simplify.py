"""Algebraic simplification: integer identities that leave every value as it was.

A staged `range(start, stop)` counts its iterations as
`max(-((start - stop) // 1), 0)`; with these rules `range(n)` counts `max(n, 0)`
and `range(1, n + 1)` counts `max(n, 0)` too:

    x // 1              ->  x                  integers only (on floats it is floor)
    0 - x               ->  -x                 integers only (0.0 - 0.0 is +0.0, -(0.0) is -0.0)
    -(-x)               ->  x                  integers and floats (negation is exact)
    -(a - b)            ->  b - a              integers only
    (x + c1) - c2       ->  x + (c1 - c2)      integers only, c1, c2 constants; x when c1 == c2

Every rule holds bit for bit in two's-complement arithmetic, wraparound
included (`-(-INT_MIN)` is INT_MIN either way), and applies only where the
result's type (dtype and shape) is exactly the type of what replaces it. The
one thing that may change is a NumPy overflow *warning* on an intermediate
the simplified code no longer computes. A constant is a Python scalar in the
call (`Weak`) or a 0-d constant node of the result's dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.graph import Graph, Node
from runtime.ir.subgraphs import walk
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Weak
from runtime.passes.cse import eliminate_common_subexpressions, merging_hook
from runtime.passes.rewrite import copies_as_is, rewrite

__all__ = ["simplify", "simplify_and_merge", "simplified"]

_OPS = frozenset({"floor_divide", "subtract", "negative"})

# A node to build: (op, inputs, attrs, type, origin).
_Spec = tuple[str, tuple[Node, ...], dict[str, Any], Any, Any]


def _operands(attrs: dict[str, Any], inputs: tuple[Node, ...]) -> list[Any] | None:
    """The positional arguments: input Nodes and Weak scalars; None for a call with keywords."""
    if any(key != "args" for key in attrs):
        return None
    template = attrs.get("args")
    if template is None:
        return list(inputs)
    operands: list[Any] = []
    for item in template:
        if isinstance(item, Slot):
            operands.append(inputs[item.index])
        elif isinstance(item, Weak):
            operands.append(item)
        else:
            return None
    return operands


def _integer(type_: Any) -> bool:
    return isinstance(type_, TensorType) and type_.dtype.kind in "iu"


def _value(operand: Any, type_: TensorType) -> int | None:
    """An integer constant operand's value (in the result's dtype), else None."""
    if isinstance(operand, Weak):
        value = operand.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if operand.op == "constant" and operand.type.shape == () and operand.type.dtype == type_.dtype:
        return int(operand.attrs["value"])
    return None


def _call(op: str, operands: list[Any], type_: Any, origin: Any) -> _Spec:
    """A spec calling `op` on `operands` (Nodes and Weaks)."""
    inputs: list[Node] = []
    template: list[Any] = []
    for operand in operands:
        if isinstance(operand, Weak):
            template.append(operand)
        else:
            template.append(Slot(len(inputs)))
            inputs.append(operand)
    attrs = {} if all(isinstance(t, Slot) for t in template) else {"args": tuple(template)}
    return (op, tuple(inputs), attrs, type_, origin)


def simplified(
    op: str, inputs: tuple[Node, ...], attrs: dict[str, Any], type_: Any, origin: Any = None,
) -> Node | _Spec | None:
    """What a node of `op` on `inputs` simplifies to: an existing node, a node to build, or None."""
    if op not in _OPS or not isinstance(type_, TensorType):
        return None
    args = _operands(attrs, inputs)
    if args is None:
        return None
    if op == "negative" and len(args) == 1 and isinstance(args[0], Node):
        inner = args[0]
        if inner.op == "negative" and inner.type == type_ and type_.dtype.kind in "iuf":
            x = _operands(inner.attrs, inner.inputs)
            if x is not None and len(x) == 1 and isinstance(x[0], Node) and x[0].type == type_:
                return x[0]
        if inner.op == "subtract" and inner.type == type_ and _integer(type_):
            pair = _operands(inner.attrs, inner.inputs)
            if pair is not None and len(pair) == 2:
                return _call("subtract", [pair[1], pair[0]], type_, origin)
        return None
    if len(args) != 2 or not _integer(type_):
        return None
    a, b = args
    if op == "floor_divide" and _value(b, type_) == 1 and isinstance(a, Node) and a.type == type_:
        return a
    if op == "subtract":
        if _value(a, type_) == 0 and isinstance(b, Node) and b.type == type_:
            return _call("negative", [b], type_, origin)
        c2 = _value(b, type_)
        if c2 is not None and isinstance(a, Node) and a.op == "add" and a.type == type_:
            inner = _operands(a.attrs, a.inputs)
            if inner is not None and len(inner) == 2:
                x, c1 = inner if _value(inner[1], type_) is not None else inner[::-1]
                c1_value = _value(c1, type_)
                if c1_value is not None and isinstance(x, Node) and x.type == type_:
                    with np.errstate(over="ignore"):
                        difference = int(np.asarray(c1_value).astype(type_.dtype) - np.asarray(c2).astype(type_.dtype))
                    return x if difference == 0 else _call("add", [x, Weak(difference)], type_, origin)
    return None


def _build(result: Node | _Spec, new: Graph) -> Node:
    """The node `result` stands for, built (and simplified again) in `new` if it is a spec."""
    if isinstance(result, Node):
        return result
    op, inputs, attrs, type_, origin = result
    again = simplified(op, inputs, attrs, type_, origin)
    if again is not None:
        return _build(again, new)
    return new.add_node(op, inputs, attrs, type_, origin, op)


def _applies(graphs: list[Graph]) -> bool:
    return any(
        simplified(node.op, node.inputs, node.attrs, node.type) is not None
        for sub in graphs for node in sub.nodes if node.op in _OPS
    )


def simplify(graph: Graph, graphs: list[Graph] | None = None) -> Graph:
    """`graph` with the rules above applied (the same graph when none applies)."""
    graphs = walk(graph) if graphs is None else graphs
    if not _applies(graphs) and copies_as_is(graph, graphs):
        return graph

    def hook(node: Node, inputs: tuple[Node, ...], new: Graph) -> Node | None:
        result = simplified(node.op, inputs, node.attrs, node.type, node.origin)
        return None if result is None else _build(result, new)

    return rewrite(graph, hook)


def simplify_and_merge(graph: Graph, graphs: list[Graph] | None = None) -> Graph:
    """`simplify`, then common-subexpression elimination, in one copy of the graph (what `optimize` runs)."""
    graphs = walk(graph) if graphs is None else graphs
    if not _applies(graphs):
        return eliminate_common_subexpressions(graph, graphs)
    merge = merging_hook()

    def hook(node: Node, inputs: tuple[Node, ...], new: Graph) -> Node | None:
        result = simplified(node.op, inputs, node.attrs, node.type, node.origin)
        return merge(node, inputs, new) if result is None else _build(result, new)

    return rewrite(graph, hook)
