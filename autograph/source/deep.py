"""Deep stacks: room for code as deeply nested as Python itself accepts.

The converter's passes, its printer, Python's own `ast.parse` and `compile`,
and a trace of nested staged conditionals each recurse once or more per
level of the user's nesting. Python's compiler accepts about 3,000 levels
(three times the default recursion limit of 1,000, measured from where
`compile` is called), far more than the converter fits in the default limit
(a `+` chain of 495 terms, an elif chain of ~330, ~80 staged).

`run_deep(job)` runs `job()` on a new thread with a 512 MiB stack (address
space: pages are touched only as deep as the job goes) and the recursion
limit raised to 60,000 while it runs, restored when it returns. The caller's
context variables are copied in, so a trace keeps its graph. One deep job
runs at a time (the limit is process-wide); inside one, `run_deep` calls the
job directly.

Ordinary code never pays: `retry_deep(job)` runs `job()` where it is, and on
its own thread only when it raised RecursionError, which a conversion (pure:
source in, code out) may be retried after.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["DEEP_LIMIT", "in_deep_thread", "retry_deep", "run_deep"]

T = TypeVar("T")

DEEP_LIMIT = 60_000
_DEEP_STACK = 512 * 1024 * 1024
_LOCK = threading.Lock()
_DEEP = threading.local()


def in_deep_thread() -> bool:
    """Whether this thread is a deep one (a job there gains nothing from another)."""
    return getattr(_DEEP, "active", False)


def run_deep(job: Callable[[], T]) -> T:
    """`job()` run on a thread with a large stack and recursion limit; its result or its exception."""
    if in_deep_thread():
        return job()
    context = contextvars.copy_context()
    outcome: list = [None, None]

    def body() -> None:
        _DEEP.active = True
        try:
            outcome[0] = context.run(job)
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread as it is
            outcome[1] = error

    with _LOCK:
        old_limit = sys.getrecursionlimit()
        old_stack = threading.stack_size()
        sys.setrecursionlimit(max(old_limit, DEEP_LIMIT))
        try:
            threading.stack_size(_DEEP_STACK)
            try:
                thread = threading.Thread(target=body, name="autograph-deep", daemon=True)
                thread.start()
            finally:
                threading.stack_size(old_stack)
            thread.join()
        finally:
            if sys.getrecursionlimit() == max(old_limit, DEEP_LIMIT):  # unless someone changed it since
                sys.setrecursionlimit(old_limit)
    if outcome[1] is not None:
        error = outcome[1]
        outcome[1] = None  # no cycle through the traceback's frames
        raise error
    return outcome[0]


def retry_deep(job: Callable[[], T]) -> T:
    """`job()`, and again on a deep thread if it ran out of recursion here (only a pure job)."""
    try:
        return job()
    except RecursionError:
        if in_deep_thread():
            raise
    return run_deep(job)
