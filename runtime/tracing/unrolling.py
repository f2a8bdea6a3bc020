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

from collections.abc import Callable

from runtime.ir.origin import user_origin
from runtime.tracing.diagnostics import is_recording, note
from runtime.tracing.fallbacks import fall_back, is_strict
from runtime.tracing.trace_context import current_graph

__all__ = ["UnrollWarning", "UnrollWatch", "LIMIT"]

LIMIT = 100
_WARNED: set[tuple[str, int]] = set()  # loop lines warned about: once per loop


class UnrollWarning(UserWarning):
    """A Python loop ran more than 100 times while tracing: the graph holds its body that
    many times. Iterate over ag.range(...) or a tensor to stage it as one loop."""


class UnrollWatch:
    """Counts the iterations of one Python loop while tracing, and the nodes they add."""

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
                self._report(partial=True)
            return body(*args)

        return counted_body

    def done(self) -> None:
        """The loop ended in Python: report it if it ran more than LIMIT times."""
        if self.count > LIMIT or (is_recording() and self.count):
            self._report(partial=False)

    def _report(self, partial: bool) -> None:
        nodes = len(self.graph.nodes) - self.start if self.graph is not None else 0
        times = f"more than {LIMIT}" if partial else str(self.count)
        how = (
            "iterate over ag.range(...) or a tensor to stage it"
            if self.statement == "for" else "make its condition a tensor to stage it"
        )
        note(self.statement, "unrolled", f"ran {times} times while tracing, adding {nodes} nodes")
        if self.count <= LIMIT or (is_recording() and not is_strict()):
            return  # ag.explain reports it: no warning, and the loop may still warn later
        origin = user_origin()
        place = (origin.file, origin.line) if origin is not None else None
        if place is not None and place in _WARNED and not is_strict():
            return
        if place is not None:
            _WARNED.add(place)
        fall_back(
            f"a Python {self.statement} loop ran {times} times while tracing, adding {nodes} nodes "
            f"to the graph\n{how}: the graph then holds one loop, whatever the count.",
            UnrollWarning, origin,
        )
