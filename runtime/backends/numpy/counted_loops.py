"""Counted loops: what a loop that counts 0, 1, ..., n - 1 and then stops tells the code generator.

Most staged loops come from `for i in ag.range(n)` (or `for x in t`): a loop
variable that starts at 0, grows by 1 and alone ends the loop (`i < n` is the
whole test). With `n` a constant, such a loop runs exactly `n` times and `i`
takes every value in `[0, n)`, in order. Two facts follow that the compiled
code can use, neither of which changes a value:

- a transposed view whose rows the loop reads with `t[i]` is read whole, so
  it may be copied to contiguous memory first (`runtime.backends.numpy.row_layout`);
- a TensorArray of at least `n` elements written at `i` is never written out
  of bounds, and a value of its dtype needs no conversion, so the write is a
  plain list store: `states[iteration] = tanh` instead of a checked
  `ta_write(...)` call (`in_bounds_writes`);
- a counter used only as an index may count in Python ints (`int_counters`).

A loop with `maximum_iterations`, a break flag in its test, or a counter that
starts elsewhere or steps otherwise is not counted.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from runtime.ir.graph import Graph, Node
from runtime.ir.types import TensorType
from runtime.ops.calls import resolve_call

__all__ = ["Counter", "counters", "trip_count", "in_bounds_writes", "int_counters", "constant_int"]


Counter = tuple[Node, Node, int]  # a loop, the counter input of its body, the trip count


def counters(graph: Graph) -> list[Counter]:
    """(loop, counter input of its body, trip count) for each counted loop of `graph` itself."""
    found = []
    for loop in graph.nodes:
        if loop.op != "while" or loop.attrs.get("maximum_iterations") is not None:
            continue
        for index, counter in enumerate(loop.attrs["body"].inputs):
            count = trip_count(loop, index)
            if count is not None:
                found.append((loop, counter, count))
    return found


def trip_count(loop: Node, index: int) -> int | None:
    """The loop's trip count if loop variable `index` counts 0, 1, ... and alone ends it."""
    cond, body = loop.attrs["cond"], loop.attrs["body"]
    step, test = body.outputs[index], cond.outputs[0]
    if step.op != "add" or test.op != "less" or loop.inputs[index].op != "constant":
        return None
    if constant_int(loop.inputs[index]) != 0 or _call(step) != (body.inputs[index], 1):
        return None
    args = _call(test)
    if len(args) != 2 or args[0] is not cond.inputs[index]:
        return None
    return constant_int(args[1])


def in_bounds_writes(graph: Graph, loops: list[Counter] | None = None) -> list[Node]:
    """The "ta_write" nodes of counted loops' bodies that can neither fail nor convert.

    The write is at the counter into the array the loop carries, the array was
    made before the loop with a constant size of at least the trip count, the
    loop carries the write's result on (the same list), and the written value
    has the array's dtype. `loops` are the graph's `counters`, when known.
    """
    writes = []
    for loop, counter, count in counters(graph) if loops is None else loops:
        body = loop.attrs["body"]
        for node in body.nodes:
            if node.op != "ta_write" or node.inputs[1] is not counter:
                continue
            carried = node.inputs[0]
            if carried.op != "input" or carried not in body.inputs:
                continue
            slot = body.inputs.index(carried)
            made = loop.inputs[slot]
            value = node.inputs[2].type
            if (
                body.outputs[slot] is node
                and made.op == "ta_new"
                and len(made.inputs) == 1
                and (constant_int(made.inputs[0]) or 0) >= count
                and isinstance(value, TensorType)
                and value.dtype == node.attrs["dtype"]
            ):
                writes.append(node)
    return writes


def int_counters(graph: Graph, loops: list[Counter], stores: Collection[Node]) -> list[Node]:
    """The counters of `loops` that may count in Python ints instead of NumPy int64 scalars.

    Their values are the same (0 .. n, far from any overflow) and every use
    reads them as an index, where a Python int is cheaper (`t[i]`, `i + 1`,
    `i < n`: about 80 ns less per step together). So the counter must have no
    other use: in the body only its step `i + 1` (with a literal 1, carried
    to the next iteration and used by nothing else), plain reads `t[i]` and
    `stores` at it; in the test only `i < n`; and nothing reads it after the loop.
    """
    found = []
    for loop, counter, _ in loops:
        body, cond = loop.attrs["body"], loop.attrs["cond"]
        index = body.inputs.index(counter)
        step = body.outputs[index]
        if len(step.inputs) != 1 or [o for o in body.outputs if o is step or o is counter] != [step]:
            continue
        if any(n.op == "getitem" and n.inputs[0] is loop and n.attrs["index"] == index for n in graph.nodes):
            continue
        if all(_reads_as_index(n, counter, step, stores) for n in body.nodes) and all(
            n is cond.outputs[0] or cond.inputs[index] not in n.inputs for n in cond.nodes
        ):
            found.append(counter)
    return found


def _reads_as_index(node: Node, counter: Node, step: Node, stores: Collection[Node]) -> bool:
    """Whether `node` leaves the counter and its step alone, or reads the counter only as an index."""
    if step in node.inputs:
        return False
    if node is step or counter not in node.inputs:
        return True
    if node.op == "index" and not node.attrs:
        return node.inputs == (node.inputs[0], counter) and node.inputs[0] is not counter
    return node in stores and node.inputs[1] is counter and counter not in (node.inputs[0], node.inputs[2])


def _call(node: Node) -> tuple:
    """The node's positional arguments: input nodes, constants as Python ints, literals."""
    args, kwargs = resolve_call(node.inputs, node.attrs)
    if kwargs:
        return ()
    return tuple(constant_int(a) if isinstance(a, Node) and a.op == "constant" else a for a in args)


def constant_int(item: Any) -> int | None:
    """A 0-d integer constant node or literal as a Python int; None for anything else."""
    if isinstance(item, Node):
        if item.op != "constant":
            return None
        item = item.attrs["value"]
    if type(item) is int:
        return item
    if isinstance(item, (int, np.integer, np.ndarray)) and not isinstance(item, bool):
        array = np.asarray(item)
        if array.ndim == 0 and array.dtype.kind in "iu":
            return int(array)
    return None
