"""Running every Function as plain Python, for debugging.

The switch is one process-wide flag in a list, which the general call path
reads at every call; turning it on also counts one reason for the fast calls
of cached traces to step aside (`runtime.tracing.trace_context.STEP_ASIDE`), so it
takes effect at the next call of every Function without touching their caches.
"""

from __future__ import annotations

import threading

from runtime.tracing.trace_context import step_aside

__all__ = ["EAGER", "run_functions_eagerly", "functions_run_eagerly"]

EAGER = [False]
_switch_lock = threading.Lock()


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Run every Function as plain Python (no tracing) while debugging."""
    with _switch_lock:
        if EAGER[0] != bool(run_eagerly):
            EAGER[0] = bool(run_eagerly)
            step_aside(1 if run_eagerly else -1)


def functions_run_eagerly() -> bool:
    return EAGER[0]
