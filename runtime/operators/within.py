"""within: tensor-dependent control flow inside a try or with block is refused.

A staged if/while/for, assert, conditional expression or `and`/`or` becomes
a graph node; the user's `except`, `finally` or `__exit__` around it runs
once, while tracing, and never sees what happens when the graph runs (a
staged assert failing, an error in the branch the graph takes). While
tracing, both branches of a cond run, so the handler may also see an error
of a branch Python would not have taken. The converter passes the innermost
enclosing try/with of such a construct as `within=('try', 12)`; the operator
raises (`refuse_if_within`) instead of staging. The user's handler may well
catch it (a StagingError is a ValueError), so it is also kept on the trace's
top graph, which fails the trace once the function returns.
"""

from __future__ import annotations

from runtime.ir.errors import StagingError
from runtime.ir.origin import user_origin
from runtime.operators.within_diagnostics import traced_within
from runtime.tracing.trace_context import current_graph

__all__ = ["refuse_if_within"]

# why staging would hide what happens from the block, and another fix, for the constructs with their own
_WHY = {
    "assert": ("a failing staged assert raises InvalidArgumentError when the graph runs, past the {0} block", ""),
    "conditional expression": (
        "both branches are traced now, and the one the graph runs may raise past the {0} block",
        " If both branches are safe to compute, np.where(c, a, b) stages no cond.",
    ),
    "'and'": (
        "its right side is traced now, and may raise past the {0} block when the graph runs it",
        " If both sides are safe to compute, `(a) & (b)` stages no cond.",
    ),
    "'or'": (
        "its right side is traced now, and may raise past the {0} block when the graph runs it",
        " If both sides are safe to compute, `(a) | (b)` stages no cond.",
    ),
}


def refuse_if_within(within: tuple[str, int] | None, statement: str) -> None:
    """Raise the StagingError for a tensor-dependent `statement` inside `within`; nothing if None.

    `statement`: 'if', 'while', 'for', 'assert', 'conditional expression', "'and'" or "'or'".
    """
    if within is not None and not _is_tape_block(within):
        traced_within(within, statement)  # ag.explain's record; strict mode's error
        raise _refusal(within, statement)


def _is_tape_block(within: tuple[str, int]) -> bool:
    """A `with ag.GradientTape()` block: it records what the graph computes, so staging inside is right."""
    if within[0] != "with":
        return False
    from runtime.operators.gradient_tape import open_tape_lines

    origin = user_origin(4)
    return origin is not None and (origin.file, within[1]) in open_tape_lines()


def _refusal(within: tuple[str, int], statement: str) -> StagingError:
    keyword, line = within
    origin = user_origin(3)
    where = f" at {origin}" if origin is not None else ""
    excerpt = f"\n{origin.excerpt()}" if origin is not None and origin.text else ""
    block = f"{origin.file}:{line}" if origin is not None else f"line {line}"
    why, other_fix = _WHY.get(statement, ("", ""))
    why = f" ({why.format(keyword)})" if why else ""
    error = StagingError(
        f"a tensor-dependent {statement}{where} is inside the {keyword} block at {block}; staged, it "
        f"runs when the graph runs, but the {keyword} block only sees what happens while tracing{why}."
        f"{excerpt}\nMove the {keyword} block outside the Function (around the call), or move the "
        f"{statement} out of the {keyword} block. Work that must happen at every run (cleanup, "
        f"catching the InvalidArgumentError of a staged assert) belongs around the call of the Function."
        f"{other_fix}"
    )
    graph = current_graph()
    while graph is not None and graph.parent is not None:
        graph = graph.parent
    if graph is not None and graph.refused is None:
        graph.refused = error
    return error
