"""Row layout: a transposed array that a loop reads row by row is made contiguous first.

`np.transpose` (like swapaxes, moveaxis, matrix_transpose, rot90) gives a
strided view, and every row `t[i]` read from it is strided too: NumPy's ufuncs
take their slow path on such a row (an add of two float32[2, 4] rows costs
about 0.9 us instead of 0.45 us). A loop that counts `i` from 0 up to the
number of rows and reads `t[i]` at every iteration reads the whole array, so
one contiguous copy before it costs about one pass of those reads, and every
row after it is contiguous. The code generator asks `walked_views` which views
to copy (a layout choice, like its copies for in-place ops: the graph's values
are the same), and prints the copy around the view's own call; this halves
the time per step of a small RNN:

    transpose = np.ascontiguousarray(np.transpose(input_data, (1, 0, 2)))
    iteration = np.int64(0)
    while iteration < 1000:
        index = transpose[iteration]
        ...

Only a loop that surely reads every row qualifies: its test is `i < rows`
alone (no break flag, no maximum_iterations), `i` starts at 0 and grows by 1,
and `t[i]` is read in the body itself, not in a branch of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.calls import resolve_call
from runtime.types import TensorType

__all__ = ["walked_views", "VIEWS"]

VIEWS = frozenset({"transpose", "swapaxes", "moveaxis", "matrix_transpose", "rot90"})


def walked_views(graph: Graph) -> list[Node]:
    """The strided views of `graph` that one of its own loops reads every row of, in order."""
    views = []
    for loop in graph.nodes:
        if loop.op != "while" or loop.attrs.get("maximum_iterations") is not None:
            continue
        body = loop.attrs["body"]
        for index, counter in enumerate(body.inputs):
            rows = _count(loop, index)
            if rows is None:
                continue
            for node in body.nodes:
                if node.op != "index" or node.attrs or node.inputs[1] is not counter:
                    continue
                read = node.inputs[0]
                view = read.attrs["outer"] if read.op == "capture" else None
                if view is not None and view.op in VIEWS and _rows(view.type) == rows:
                    views.append(view)
    return views


def _count(loop: Node, index: int) -> int | None:
    """The loop's trip count if loop variable `index` counts 0, 1, ... and alone ends it."""
    cond, body = loop.attrs["cond"], loop.attrs["body"]
    if _value(loop.inputs[index]) != 0:
        return None
    step = body.outputs[index]
    if step.op != "add" or _call(step) != (body.inputs[index], 1):
        return None
    test = cond.outputs[0]
    if test.op != "less":
        return None
    args = _call(test)
    if len(args) != 2 or args[0] is not cond.inputs[index]:
        return None
    limit = _value(args[1])
    return limit if type(limit) is int else None


def _call(node: Node) -> tuple:
    """The node's positional arguments: input nodes, constants as their values, literals."""
    args, kwargs = resolve_call(node.inputs, node.attrs)
    if kwargs:
        return ()
    return tuple(_value(a) if isinstance(a, Node) and a.op == "constant" else a for a in args)


def _value(item: Any) -> Any:
    """A constant's value as a Python int (or None), an int literal as it is."""
    if isinstance(item, Node):
        if item.op != "constant":
            return None
        item = item.attrs["value"]
    if isinstance(item, (int, np.integer, np.ndarray)) and not isinstance(item, bool):
        array = np.asarray(item)
        if array.ndim == 0 and array.dtype.kind in "iu":
            return int(array)
    return None


def _rows(type_: Any) -> int | None:
    """The number of rows of an array of at least two dimensions (None if unknown)."""
    if not isinstance(type_, TensorType) or type_.shape is None or len(type_.shape) < 2:
        return None
    if type_.dtype == object:
        return None
    return type_.shape[0]
