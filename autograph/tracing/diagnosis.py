"""What a Function tells about itself beyond running: its tracing history (see history),
with check=True the parity of each call with plain Python (see parity), and the
captured Python values each trace read (see captured).

A mixin of `Function`, kept apart so the call path stays short to read.
"""

from __future__ import annotations

from typing import Any

from autograph.tracing.captured import Watch, watches_of
from autograph.tracing.captured import check as check_captured
from autograph.tracing.history import History, TraceRecord
from autograph.tracing.parity import check_parity, copied_inputs
from runtime.ir.structure import unflatten

__all__ = ["Diagnosed", "History", "check_captured"]


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

    def _watches(self, tree: Any, leaves: list) -> list[Watch]:
        """The captured values the trace just made read (see captured): checked at later calls."""
        # objects passed as they are (keyed by identity), not structures rebuilt from their leaves
        bound = {name: value for name, value, child in zip(
            self._signature.names, unflatten(tree, leaves), tree.children) if child.kind == "leaf"}  # type: ignore[attr-defined]
        instance = self._instance() if self._instance is not None else None  # type: ignore[attr-defined]
        code = getattr(self._func, "__code__", None)
        if instance is not None and code is not None and code.co_argcount:
            bound[code.co_varnames[0]] = instance
        return watches_of(self._func, bound)
