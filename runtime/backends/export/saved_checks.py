"""Checks of a decoded node: its attributes have the forms its op reads, and its type is its op's.

The decoder (saved_decode.py) builds each node from the file and hands it
here before it is used: every `Slot` names one of the node's inputs, an
op's own type rule (runtime/ops) gives the type the file records, and a
`cond` or `while` has subgraphs that match its inputs and results. Any
mismatch is a `Malformed`, which the decoder turns into a LoadError naming
the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import runtime.ops  # noqa: F401  registers every op a saved graph may name
from runtime.backends.export.saved_format import TYPED_BY_CALLER
from runtime.ir.graph import Graph, Node
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Span
from runtime.ops.registry import OPS

__all__ = ["Malformed", "check_node"]


class Malformed(Exception):
    """A problem in the file, with where it is; becomes a LoadError naming the file."""


def check_node(node: Node) -> None:
    """The node's attributes have the forms its op reads, and its type is the op's rule's."""
    op, attrs = node.op, node.attrs
    if op == "input" or op == "capture":
        return
    if op == "constant":
        if "value" not in attrs:
            raise Malformed(f"constant {node.name!r} has no value")
        return
    if op == "getitem" and type(attrs.get("index")) is not int:
        raise Malformed(f"node {node.name!r} reads a non-integer index")
    if "args" in attrs:
        _check_template(attrs["args"], len(node.inputs), node.name)
    for key, value in attrs.items():
        if key != "args" and not isinstance(value, Graph):
            _check_template(value, len(node.inputs), node.name)
    if op == "cond":
        _check_cond(node)
        return
    if op == "while":
        _check_while(node)
        return
    if op in TYPED_BY_CALLER:
        return
    try:
        inferred = OPS[op].infer(tuple(i.type for i in node.inputs), attrs)
    except Exception as error:  # the op's own rule refuses what the file says
        raise Malformed(f"node {node.name!r} ({op}) does not fit its inputs: {error}") from None
    if inferred != node.type:
        raise Malformed(f"node {node.name!r} ({op}) is typed {_show(node.type)}, but its op gives {_show(inferred)}")


def _check_cond(node: Node) -> None:
    true, false = node.attrs.get("true"), node.attrs.get("false")
    if not isinstance(true, Graph) or not isinstance(false, Graph) or not isinstance(node.type, tuple):
        raise Malformed(f"cond {node.name!r} lacks its branches")
    for branch in (true, false):
        if branch.inputs or [o.type.dtype for o in branch.outputs] != [t.dtype for t in node.type]:
            raise Malformed(f"cond {node.name!r}: a branch's results do not match the cond's types")
    _check_captures(node, (true, false), 1)


def _check_while(node: Node) -> None:
    cond, body = node.attrs.get("cond"), node.attrs.get("body")
    limit = node.attrs.get("maximum_iterations")
    if not isinstance(cond, Graph) or not isinstance(body, Graph) or not isinstance(node.type, tuple):
        raise Malformed(f"while {node.name!r} lacks its test or body")
    if limit is not None and type(limit) is not int:
        raise Malformed(f"while {node.name!r} has a non-integer iteration limit")
    count = len(node.type)
    types = list(node.type)
    if ([n.type for n in body.inputs] != types or [n.type for n in cond.inputs] != types
            or [n.type for n in body.outputs] != types or len(cond.outputs) != 1):
        raise Malformed(f"while {node.name!r}: its test and body do not match its loop variables")
    if [n.type for n in node.inputs[:count]] != [TensorType(t.dtype, n.type.shape) for t, n in
                                                 zip(types, node.inputs[:count])]:
        raise Malformed(f"while {node.name!r}: its initial values do not match its loop variables")
    _check_captures(node, (cond, body), count)


def _check_captures(node: Node, graphs: Sequence[Graph], first: int) -> None:
    captured: dict[Node, None] = {}
    for sub in graphs:
        for outer in sub.captures:
            captured.setdefault(outer, None)
    if list(captured) != list(node.inputs[first:]):
        raise Malformed(f"{node.op} {node.name!r}: its inputs are not the values its subgraphs capture")


def _show(type_: Any) -> str:
    return str(type_) if isinstance(type_, TensorType) else "(" + ", ".join(map(str, type_)) + ")"


def _check_template(item: Any, count: int, name: str) -> None:
    """Every Slot of an attribute names one of the node's inputs."""
    if isinstance(item, Slot):
        if not 0 <= item.index < count:
            raise Malformed(f"node {name!r} refers to input {item.index} of its {count}")
    elif isinstance(item, (tuple, list)):
        for value in item:
            _check_template(value, count, name)
    elif isinstance(item, Span):
        for value in (item.start, item.stop, item.step):
            _check_template(value, count, name)
