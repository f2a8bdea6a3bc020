"""Common-subexpression elimination: one node per (op, inputs, attrs).

    a = x * 2
    b = x * 2            ->   a = x * 2
    c = a + b                 c = a + a

Only pure ops are merged: effectful and stateful ones (a variable read may
see a different value after an assign), control flow and TensorArrays (two
new ones of one size are two arrays) never are. Attrs
are compared by type and value (`0.0` and `-0.0`, `1` and `True` differ);
a node whose attrs cannot be hashed is left alone. Scalar constants of the
same dtype and value are merged as well. Each graph is its own scope.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS
from runtime.ir.subgraphs import walk
from runtime.ops.calls import Weak
from runtime.ops.registry import OPS
from runtime.passes.gradient.build import is_handle
from runtime.passes.rewrite import Hook, copies_as_is, rewrite

__all__ = ["eliminate_common_subexpressions", "merging_hook"]


def _freeze(value: Any) -> Any:
    if isinstance(value, tuple):
        return ("tuple", tuple(_freeze(v) for v in value))
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return (type(value).__name__, repr(value))
    if isinstance(value, Weak):
        return ("weak", _freeze(value.value))
    hash(value)
    return (type(value), value)


def _key(node: Node, inputs: tuple[Node, ...]) -> Any:
    if node.op == "constant":
        value = node.attrs["value"]
        array = np.asarray(value)
        if array.ndim != 0 or array.dtype == object:
            return None
        return ("constant", array.dtype.str, repr(array.item()))
    if node.op in SUBGRAPH_FIELDS or node.op in ("input", "capture") or not inputs:
        return None
    op = OPS.get(node.op)
    if op is None or op.effectful or op.stateful or op.inplace:
        return None
    if is_handle(node.type):
        # a TensorArray: each is its own (its writes decide its element type, which XLA
        # preallocates per TensorArray), so two empty ones of the same size stay two
        return None
    try:
        attrs = tuple(sorted((k, _freeze(v)) for k, v in node.attrs.items()))
        key = (node.op, tuple(id(i) for i in inputs), attrs)
        hash(key)
    except TypeError:
        return None
    return key


def _has_repeats(graph: Graph) -> bool:
    """Whether two nodes of `graph` (not of its subgraphs) have the same key.

    Nodes of the same op on the same inputs are compared by their full keys;
    any other node's key is unique already, so its attrs are never frozen.
    """
    groups: dict[Any, list[Node]] = {}
    for node in graph.nodes:
        if node.op == "constant" or (node.inputs and node.op not in SUBGRAPH_FIELDS):
            groups.setdefault((node.op, tuple([id(i) for i in node.inputs])), []).append(node)
    for group in groups.values():
        if len(group) > 1:
            keys = [key for key in (_key(n, n.inputs) for n in group) if key is not None]
            if len(set(keys)) < len(keys):
                return True
    return False


def eliminate_common_subexpressions(graph: Graph, graphs: list[Graph] | None = None) -> Graph:
    """`graph` with repeated pure computations computed once.

    While nothing has been merged, the copy's nodes stand one for one for
    the original's, so a graph whose own keys are all distinct has nothing to
    merge and is returned as it is. The copy groups nodes by op, type (for
    constants) and inputs first, and computes the full key, attrs and all,
    only of nodes that share a group. `graphs` is `walk(graph)`, when the
    caller has it already.
    """
    graphs = walk(graph) if graphs is None else graphs
    if not any(_has_repeats(sub) for sub in graphs) and copies_as_is(graph, graphs):
        return graph
    return rewrite(graph, merging_hook())


def merging_hook() -> Hook:
    """The rewrite hook of one CSE copy (another pass's hook may hand it the nodes it leaves as they are)."""
    seen: dict[int, dict[Any, list[list]]] = {}

    def hook(node: Node, inputs: tuple[Node, ...], new: Graph) -> Node | None:
        if not _may_merge(node, inputs):
            return None
        group_key = (node.op, node.type if node.op == "constant" else None, tuple([id(i) for i in inputs]))
        group = seen.setdefault(id(new), {}).setdefault(group_key, [])
        key = _key(node, inputs) if group else _UNKNOWN
        if key is None:
            return None
        for entry in group:  # [key or _UNKNOWN, original node, its inputs, the copy]
            if entry[0] is _UNKNOWN:
                entry[0] = _key(entry[1], entry[2])
            if entry[0] is not None and entry[0] == key:
                return entry[3]
        made = new.add_node(node.op, inputs, node.attrs, node.type, node.origin, node.name)
        group.append([key, node, inputs, made])
        return made

    return hook


_UNKNOWN = object()  # a group member's key, not computed while it is alone in its group


def _may_merge(node: Node, inputs: tuple[Node, ...]) -> bool:
    """What `_key` checks before the attrs: a constant, or a pure op with inputs."""
    if node.op == "constant":
        return True
    if node.op in SUBGRAPH_FIELDS or node.op in ("input", "capture") or not inputs:
        return False
    op = OPS.get(node.op)
    return op is not None and not (op.effectful or op.stateful or op.inplace)
