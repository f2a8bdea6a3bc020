"""The graph a trace is recording into right now.

One private ContextVar holds the innermost graph being built (a subgraph
while a cond branch or loop body is traced); `building(graph)` sets it for a
`with` block. Nothing else in the project keeps tracing state globally, but
for one number: `STEP_ASIDE[0]`, how many reasons there are right now, in any
thread, for the fast call of a cached trace to leave a call to the general
path (each graph being built, and eager mode, count one). The fast call tests
that list item at every call, which costs less than asking the ContextVar;
the general path then asks the ContextVar itself. Whoever must act when that
number leaves or returns to 0 (autograph's Python mode, which swaps code then)
registers with `when_stepping_aside`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar

from runtime.ir.graph import Graph

__all__ = [
    "current_graph", "graph_being_built", "building", "is_tracing", "STEP_ASIDE", "step_aside",
    "when_stepping_aside",
]

_current: ContextVar[Graph | None] = ContextVar("autograph_current_graph", default=None)
STEP_ASIDE = [0]
_count_lock = threading.Lock()  # `+=` on a list item is no atomic step between threads
_listeners: list[Callable[[bool], None]] = []

# `current_graph` as the ContextVar's own bound method: the same answer without a
# Python frame, for the general call path of a Function, which asks at every call.
graph_being_built = _current.get


def current_graph() -> Graph | None:
    """The innermost graph being recorded, or None outside any trace."""
    return _current.get()


def is_tracing() -> bool:
    return _current.get() is not None


def building(graph: Graph) -> _Building:
    """Record every staged op in `graph` for the duration of the `with` block."""
    return _Building(graph)


class _Building:
    """`building`'s context manager: a class, as a trace enters one per graph and subgraph
    and a generator-based one costs several times as much to enter and leave."""

    __slots__ = ("graph", "_token")

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def __enter__(self) -> Graph:
        self._token = _current.set(self.graph)
        step_aside(1)
        return self.graph

    def __exit__(self, *exc_info: object) -> None:
        step_aside(-1)
        _current.reset(self._token)


def step_aside(change: int) -> None:
    """Count one more (1) or one less (-1) reason for fast calls to take the general path."""
    with _count_lock:
        before = STEP_ASIDE[0]
        STEP_ASIDE[0] += change
        if _listeners and (before == 0) != (STEP_ASIDE[0] == 0):
            for listener in _listeners:
                listener(STEP_ASIDE[0] > 0)


def when_stepping_aside(listener: Callable[[bool], None], register: bool = True) -> None:
    """Call `listener(stepping_aside)` now and whenever STEP_ASIDE[0] leaves 0 (True) or returns
    to it (False), with the count's lock held, so no change slips between; `register=False`
    calls it once, under the lock, without keeping it."""
    with _count_lock:
        if register:
            _listeners.append(listener)
        listener(STEP_ASIDE[0] > 0)
