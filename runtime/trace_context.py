"""The graph a trace is recording into right now.

One private ContextVar holds the innermost graph being built (a subgraph
while a cond branch or loop body is traced); `building(graph)` sets it for a
`with` block. Nothing else in the project keeps tracing state globally.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from runtime.graph import Graph

__all__ = ["current_graph", "graph_being_built", "building", "is_tracing"]

_current: ContextVar[Graph | None] = ContextVar("autograph_current_graph", default=None)

# `current_graph` as the ContextVar's own bound method: the same answer without a
# Python frame, for the call path of a cached Function, which asks at every call.
graph_being_built = _current.get


def current_graph() -> Graph | None:
    """The innermost graph being recorded, or None outside any trace."""
    return _current.get()


def is_tracing() -> bool:
    return _current.get() is not None


@contextmanager
def building(graph: Graph) -> Iterator[Graph]:
    """Record every staged op in `graph` for the duration of the block."""
    token = _current.set(graph)
    try:
        yield graph
    finally:
        _current.reset(token)
