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

Only a counted loop (`runtime.backends.numpy.counted_loops`: its test is `i < rows` alone,
`i` starts at 0 and grows by 1) surely reads every row, and only when it reads
`t[i]` in its body itself, not in a branch of it.
"""

from __future__ import annotations

from typing import Any

from runtime.backends.numpy.counted_loops import Counter, counters
from runtime.ir.graph import Graph, Node
from runtime.ir.types import TensorType

__all__ = ["walked_views", "VIEWS"]

VIEWS = frozenset({"transpose", "swapaxes", "moveaxis", "matrix_transpose", "rot90"})


def walked_views(graph: Graph, loops: list[Counter] | None = None) -> list[Node]:
    """The strided views of `graph` that one of its own loops reads every row of, in order.

    `loops` are the graph's `counters`, when known.
    """
    views = []
    for loop, counter, count in counters(graph) if loops is None else loops:
        for node in loop.attrs["body"].nodes:
            if node.op != "index" or node.attrs or node.inputs[1] is not counter:
                continue
            read = node.inputs[0]
            view = read.attrs["outer"] if read.op == "capture" else None
            if view is not None and view.op in VIEWS and _rows(view.type) == count:
                views.append(view)
    return views


def _rows(type_: Any) -> int | None:
    """The number of rows of an array of at least two dimensions (None if unknown)."""
    if not isinstance(type_, TensorType) or type_.shape is None or len(type_.shape) < 2:
        return None
    if type_.dtype == object:
        return None
    return type_.shape[0]
