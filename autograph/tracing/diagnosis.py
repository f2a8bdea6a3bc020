"""What a Function tells about itself beyond running: its tracing history (see history),
and with check=True the parity of each call with plain Python (see parity).

A mixin of `Function`, kept apart so the call path stays short to read.
"""

from __future__ import annotations

from typing import Any

from autograph.tracing.history import TraceRecord
from autograph.tracing.parity import check_parity, copied_inputs

__all__ = ["Diagnosed"]


class Diagnosed:
    """The diagnostics of a Function (API.md, "Diagnostics")."""

    _history: Any
    _name: str
    _func: Any

    def experimental_get_tracing_history(self) -> list[TraceRecord]:
        """One record per trace so far, oldest first: `.signature` and `.reason` (why it traced)."""
        return list(self._history.records)

    def _call_checked(self, args: tuple, kwargs: dict) -> Any:
        """check=True: the graph's result, once the plain Python function agrees with it."""
        python_args, python_kwargs = copied_inputs(args, kwargs)
        result = self._call_traced(args, kwargs)  # type: ignore[attr-defined]
        expected = self._call_python(self._func, python_args, python_kwargs)  # type: ignore[attr-defined]
        check_parity(self._name, result, expected)
        return result
