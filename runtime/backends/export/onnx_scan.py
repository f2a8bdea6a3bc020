"""TensorArrays a counted loop fills as `ta = ta.write(i, v)`: ONNX Loop scan outputs.

An ONNX Loop stacks the values a body gives as scan outputs after the loop
carried values, one element per iteration. A TensorArray that a counted
loop (`for i in ag.range(n)`, the counter starting at 0) writes exactly
once per iteration at the counter is exactly such a stack when it enters the
loop empty (`size=0, dynamic_size=True`) or with the loop's own trip count
as its size (every element written): the body then gives the written value
as a scan output instead of carrying a sequence through every iteration
(each SequenceErase/SequenceInsert copies the sequence, and a growing one
costs an If per write). After the loop the stacked tensor is the array:
`stack()` is the tensor itself, and any other use (read, size, another
write) gets a sequence split from it (`SplitToSequence`, which `drop_unused`
removes when nothing reads it, with the unused TensorArray the loop no longer
takes).

Every other TensorArray in a loop stays an ONNX sequence.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.export.onnx_emit import literal
from runtime.ir.graph import Graph, Node
from runtime.ops.calls import Slot

__all__ = ["scan_writes", "drop_unused"]


def _users(graph: Graph, target: Node) -> list[Node]:
    """The nodes of `graph` that take `target` as an input, and the captures of it in
    subgraphs (a nested capture of a capture is a use of the capture, so one level suffices)."""
    found = []
    for node in graph.nodes:
        if any(inp is target for inp in node.inputs):
            found.append(node)
        for value in node.attrs.values():
            if isinstance(value, Graph):
                found += [n for n in value.nodes if n.op == "capture" and n.attrs["outer"] is target]
    return found


def _constant(node: Node) -> Any:
    if node.op != "constant":
        return None
    value = np.asarray(node.attrs["value"])
    return value.item() if value.shape == () and value.dtype.kind in "iu" else None


def _sized_for_trip(ta_new: Node, bound: tuple[str, Any]) -> bool:
    """Whether the TensorArray starts empty (and may grow), or with as many elements as the loop
    runs iterations (the counter starts at 0 and the bound is its size)."""
    if not ta_new.inputs:
        return False
    size = ta_new.inputs[0]
    if _constant(size) == 0:
        return bool(ta_new.attrs.get("dynamic"))
    kind, value = bound
    if kind == "outer":
        return size is value or size is _range_length(value)
    return _constant(size) == value


def _operand(node: Node, position: int) -> Any:
    """The `position`th argument of `node`: its input node, or the literal."""
    template = node.attrs.get("args")
    if template is None:
        return node.inputs[position] if position < len(node.inputs) else None
    if len(template) <= position:
        return None
    item = template[position]
    return node.inputs[item.index] if isinstance(item, Slot) else literal(item)


def _range_length(bound: Node) -> Node | None:
    """`n` when `bound` is `ag.range(n)`'s iteration count, max(-((0 - n) // 1), 0), as traced."""
    steps = [("maximum", 1, 0), ("negative", None, None), ("floor_divide", 1, 1), ("subtract", 0, 0)]
    node = bound
    for op, literal_at, value in steps:
        if not isinstance(node, Node) or node.op != op or set(node.attrs) - {"args"}:
            return None
        if literal_at is not None:
            item = _operand(node, literal_at)
            if isinstance(item, Node) or type(item) is not int or item != value:
                return None
            node = _operand(node, 1 - literal_at)
        else:
            node = _operand(node, 0)
    return node if isinstance(node, Node) else None


def scan_writes(node: Node, counted: tuple[int, tuple[str, Any]] | None) -> dict[int, Node]:
    """Loop value index -> its body's `ta_write`, for each TensorArray of the `while` node
    `node` that becomes a scan output (see the module docstring); empty for other loops."""
    if counted is None:
        return {}
    counter, bound = counted
    if _constant(node.inputs[counter]) != 0:
        return {}
    cond, body = node.attrs["cond"], node.attrs["body"]
    found = {}
    for index, (init, inp, out) in enumerate(zip(node.inputs, body.inputs, body.outputs)):
        if index == counter or inp.type.dtype != object or init.op != "ta_new":
            continue
        if not _sized_for_trip(init, bound) or _users(cond, cond.inputs[index]):
            continue
        if out.op != "ta_write" or out.inputs[0] is not inp or out.inputs[1] is not body.inputs[counter]:
            continue
        if _users(body, inp) != [out] or _users(body, out) or body.outputs.count(out) != 1:
            continue
        if out.inputs[2].type.shape is None:  # a scan output's elements need one rank
            continue
        found[index] = out
    return found


def _read_names(graph: Any, read: set[str]) -> None:
    """Every value name `graph` and its subgraphs read (node inputs, graph outputs) into `read`."""
    read.update(out.name for out in graph.output)
    for node in graph.node:
        read.update(node.input)
        for attribute in node.attribute:
            if attribute.g.ByteSize():
                _read_names(attribute.g, read)


def _prune(graph: Any, read: set[str], keep: set[str]) -> int:
    """Remove the nodes of `graph` (and its subgraphs) whose outputs nobody reads; how many."""
    removed = 0
    for position in reversed(range(len(graph.node))):
        node = graph.node[position]
        if not any(out in read or out in keep for out in node.output if out):
            del graph.node[position]
            removed += 1
            continue
        for attribute in node.attribute:
            if attribute.g.ByteSize():
                removed += _prune(attribute.g, read, keep)
    return removed


def drop_unused(model: Any, keep: set[str] = frozenset()) -> None:
    """Remove every node none of whose outputs anything reads (ONNX nodes have no effects), and
    the constants nothing reads: the sequence split from a scan output that only `stack()`
    used, the unused TensorArray it replaced. Names are unique in the model, so a name read
    anywhere (a subgraph reads outer values by name) keeps its node; so do the names in `keep`
    (checks, which act by failing)."""
    while True:
        read: set[str] = set()
        _read_names(model.graph, read)
        if not _prune(model.graph, read, keep):
            break
    inputs = {inp.name for inp in model.graph.input}  # a Variable's initializer is an input's default
    for position in reversed(range(len(model.graph.initializer))):
        name = model.graph.initializer[position].name
        if name not in read and name not in inputs:
            del model.graph.initializer[position]
