"""Staged control flow inside a try/with: reported to ag.explain, refused in strict mode.

The operators that stage an if, loop, assert, conditional expression or
`and`/`or` hand the innermost enclosing try/with (`within=('with', 12)`) to
`within.traced_within`, which calls `note_traced_within` first: the statement
stages, but the block around it runs once, while tracing (TensorFlow's
behaviour); `ag.explain` records it as "traced-in-with", and strict mode
(runtime.tracing.fallbacks) makes it a StagingError naming the line.
"""

from __future__ import annotations

from runtime.tracing.diagnostics import note
from runtime.tracing.fallbacks import refuse_in_strict

__all__ = ["note_traced_within"]


def note_traced_within(within: tuple[str, int], statement: str) -> None:
    """Record a staged `statement` inside the try/with `within`; raise in strict mode."""
    keyword, line = within
    note(
        statement, "traced-in-with",
        f"staged inside the {keyword} block at line {line}, which runs once, while tracing",
        depth=3,
    )
    refuse_in_strict(
        f"a tensor-dependent {statement} is staged inside the {keyword} block at line {line}: "
        f"the {keyword} block runs once, while tracing, not when the graph runs\n"
        f"Move the {keyword} block around the call of the Function, or the {statement} out of it."
    )
