"""What became of each statement while tracing: the records `ag.explain` reports.

Operators and the tracing front-end call `note(...)` where they decide
something the user cannot see (a staged if, a Python loop unrolled, a call
left unconverted). Outside `recording()` nothing is kept and `note` returns
at once, so ordinary traces pay one ContextVar read per decision.

    with recording() as records:
        trace ...
    records  # [Record(file, line, statement, outcome, detail), ...]
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from runtime.ir.origin import Origin, user_origin

__all__ = ["Record", "recording", "note", "is_recording"]


@dataclass(frozen=True)
class Record:
    """One thing that happened while tracing, at a line of the user's file.

    `outcome`: "staged", "python", "unrolled", "traced-in-with", "converted",
    "unconverted" or "side-effect"; `detail` says how or why.
    """

    file: str
    line: int
    statement: str
    outcome: str
    detail: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.statement}: {self.outcome} ({self.detail})"


_log: ContextVar[list[Record] | None] = ContextVar("autograph_explain_log", default=None)


def is_recording() -> bool:
    return _log.get() is not None


def note(statement: str, outcome: str, detail: str, origin: Origin | None = None, depth: int = 1) -> None:
    """Keep a record at `origin` (default: the innermost user line) if `recording()` is on."""
    log = _log.get()
    if log is None:
        return
    if origin is None:
        origin = user_origin(depth + 1)
    if origin is not None:
        log.append(Record(origin.file, origin.line, statement, outcome, detail))


class recording:  # noqa: N801 - used as a function: `with recording() as records`
    """Collect records for the `with` block (nested blocks collect their own)."""

    __slots__ = ("records", "_token")

    def __init__(self) -> None:
        self.records: list[Record] = []

    def __enter__(self) -> list[Record]:
        self._token = _log.set(self.records)
        return self.records

    def __exit__(self, *exc_info: object) -> None:
        _log.reset(self._token)
