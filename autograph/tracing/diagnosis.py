"""What a Function tells about itself beyond running: its tracing history (see history).

A mixin of `Function`, kept apart so the call path stays short to read.
"""

from __future__ import annotations

from typing import Any

from autograph.tracing.history import TraceRecord

__all__ = ["Diagnosed"]


class Diagnosed:
    """The diagnostics of a Function (API.md, "Diagnostics")."""

    _history: Any

    def experimental_get_tracing_history(self) -> list[TraceRecord]:
        """One record per trace so far, oldest first: `.signature` and `.reason` (why it traced)."""
        return list(self._history.records)
