"""Running every Function as plain Python, for debugging.

The switch is one process-wide flag in a list: the general call path and each
trace's generated fast call read `EAGER[0]` at every call, so turning it on
takes effect at the next call of every Function without touching their caches.
"""

from __future__ import annotations

__all__ = ["EAGER", "run_functions_eagerly", "functions_run_eagerly"]

EAGER = [False]


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Run every Function as plain Python (no tracing) while debugging."""
    EAGER[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return EAGER[0]
