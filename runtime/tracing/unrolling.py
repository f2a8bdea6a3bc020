"""Python loops that run while tracing: each iteration adds its ops to the graph again.

A `for` over a Python list or range, or a `while` on a Python condition, is
unrolled while tracing: 1000 iterations make 1000 copies of the body, and a
first call that takes minutes (TF#38628). The loop operators count the
iterations of such a loop, only while a graph is being built, by wrapping its
body (`watch`), and `UnrollWatch.done` reports a loop that ran more than
`LIMIT` times: an `UnrollWarning` once per loop line, or a StagingError in
strict mode (see fallbacks).
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable

from runtime.ir.graph import Graph
from runtime.ir.origin import user_origin
from runtime.tracing.diagnostics import is_recording, note
from runtime.tracing.fallbacks import fall_back, is_strict
from runtime.tracing.trace_context import current_graph

__all__ = ["UnrollWarning", "UnrollWatch", "LIMIT"]

LIMIT = 100
_WARNED: set[tuple[str, int]] = set()  # loop lines warned about: once per loop
# per trace (its top graph): (converted code, line) of a loop -> (iterations, nodes) so far
_TOTALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class UnrollWarning(UserWarning):
    """A Python loop ran more than 100 times while tracing: the graph holds its body that
    many times. Iterate over ag.range(...) or a tensor to stage it as one loop."""


class UnrollWatch:
    """Counts the iterations of one Python loop while tracing, and the nodes they add.

    A loop nested in another unrolled loop runs many times, a few iterations
    each: the counts add up per loop (its line in the converted code) over the
    whole trace, and the warning comes when the total passes LIMIT.
    """

    __slots__ = ("statement", "count", "graph", "start")

    def __init__(self, statement: str) -> None:
        self.statement = statement
        self.count = 0
        self.graph = current_graph()
        self.start = len(self.graph.nodes) if self.graph is not None else 0

    def counted(self, body: Callable) -> Callable:
        """`body`, counting its calls; in strict mode the loop stops with the error at LIMIT + 1."""

        def counted_body(*args: object) -> object:
            self.count += 1
            if self.count == LIMIT + 1 and is_strict():
                self._report(self.count, self._nodes(), partial=True)
            return body(*args)

        counted_body.__wrapped__ = body  # the staged rest of the loop reads the state from its cells
        return counted_body

    def done(self) -> None:
        """The loop ended in Python: add its count to the loop's total; report past LIMIT."""
        if not self.count or self.graph is None:
            return
        nodes = self._nodes()
        caller = sys._getframe(2)  # the converted code that ran the loop operator
        totals = _TOTALS.setdefault(_top(self.graph), {})
        key = (caller.f_code, caller.f_lineno)
        before, added = totals.get(key, (0, 0))
        totals[key] = (before + self.count, added + nodes)
        note(self.statement, "unrolled", f"ran {self.count} times while tracing, adding {nodes} nodes")
        if before <= LIMIT < before + self.count:
            self._report(before + self.count, added + nodes, partial=False, nested=before > 0)

    def _nodes(self) -> int:
        return len(self.graph.nodes) - self.start if self.graph is not None else 0

    def _report(self, times: int, nodes: int, partial: bool, nested: bool = False) -> None:
        count = f"more than {LIMIT}" if partial else str(times)
        how = (
            "iterate over ag.range(...) or a tensor to stage it"
            if self.statement == "for" else "make its condition a tensor to stage it"
        )
        if is_recording() and not is_strict():
            return  # ag.explain reports it: no warning, and the loop may still warn later
        origin = user_origin()
        place = (origin.file, origin.line) if origin is not None else None
        if place is not None and place in _WARNED and not is_strict():
            return
        if place is not None:
            _WARNED.add(place)
        in_all = " in all (it is inside another loop)" if nested else ""
        fall_back(
            f"a Python {self.statement} loop ran {count} times{in_all} while tracing, adding "
            f"{nodes} nodes to the graph\n{how}: the graph then holds one loop, whatever the count.",
            UnrollWarning, origin,
        )


def _top(graph: Graph) -> Graph:
    while graph.parent is not None:
        graph = graph.parent
    return graph
