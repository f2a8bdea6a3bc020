"""within: tensor-dependent control flow inside a try or with block traces as in TensorFlow.

A staged if/while/for, assert, conditional expression or `and`/`or` becomes
a graph node; the user's `with` (its `__enter__`/`__exit__`), `finally:`
and `except` around it run once, while the Function traces, and the staged
construct runs whenever the graph runs (API.md, "Decided details"):

    with contextlib.nullcontext():      # entered and exited while tracing
        if x > 0:                       # a cond: runs at every call
            return x

The converter passes the innermost enclosing try/with of such a construct
as `within=('try', 12)`; the operator stages it inside `traced_within`,
which keeps a `TracedInWith` record on the trace's top graph
(`graph.traced_in_with`): what diagnostics will show as "traced-in-with",
and what a future `strict=True` refuses (`within_refusal` is its error).

One case is still refused: an exception raised *while* the construct
traces (a branch Python would not take for these inputs is traced too,
a body runs once whatever the trip count). The handler around it would
catch it once, while tracing, and every later call of the graph would
follow the handler, whatever the inputs: a silently wrong result. So such
an exception becomes the StagingError of `within_refusal`, kept on the
graph (`graph.refused`) so that the trace fails even when the user's
handler swallows it (a StagingError is a ValueError), as our own errors
raised there are.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from runtime.ir.errors import AutographError, StagingError
from runtime.ir.origin import Origin, user_origin
from runtime.operators.within_diagnostics import note_traced_within
from runtime.tracing.trace_context import current_graph

__all__ = ["TracedInWith", "traced_within", "within_refusal"]


@dataclass(frozen=True)
class TracedInWith:
    """One staged construct traced inside a try/with block: its user line and the block's."""

    statement: str  # 'if', 'while', 'for', 'assert', 'conditional expression', "'and'", "'or'"
    keyword: str  # 'try' or 'with'
    block_line: int  # the user's line of the try/with statement
    origin: Origin | None  # the construct's user line


@contextmanager
def traced_within(within: tuple[str, int] | None, statement: str) -> Iterator[None]:
    """Stage `statement` (the with body) inside the try/with `within`; nothing to do if None.

    Records the fact on the top graph, and turns an exception raised while
    the construct traces into the refusal (see the module docstring).
    """
    if within is None or _is_tape_block(within):
        yield
        return
    note_traced_within(within, statement)  # ag.explain's record; strict mode's error
    origin = user_origin()
    graph = _top_graph()
    if graph is not None:
        graph.traced_in_with.append(TracedInWith(statement, within[0], within[1], origin))
    try:
        yield
    except Exception as error:
        raised = error if isinstance(error, AutographError) else within_refusal(within, statement, origin, error)
        if graph is not None and graph.refused is None:
            graph.refused = raised
        if raised is error:
            raise
        raise raised from error


def within_refusal(
    within: tuple[str, int], statement: str, origin: Origin | None, error: BaseException | None = None
) -> StagingError:
    """The StagingError for a tensor-dependent `statement` at `origin` inside the block `within`.

    With `error`, the exception its tracing raised (which the block would
    catch while tracing); without, the refusal of a strict Function, which
    does not stage control flow inside try/with at all.
    """
    keyword, line = within
    where = f" at {origin}" if origin is not None else ""
    excerpt = f"\n{origin.excerpt()}" if origin is not None and origin.text else ""
    block = f"{origin.file}:{line}" if origin is not None else f"line {line}"
    if error is not None:
        why = (
            f"tracing it raised {type(error).__name__}({str(error)!r}); staged, it is traced whatever the "
            f"values (both branches of a cond, a loop body once), so the {keyword} block would see this "
            f"error while tracing and every later call would follow it"
        )
    else:
        why = f"staged, it runs when the graph runs, but the {keyword} block only sees what happens while tracing"
    return StagingError(
        f"a tensor-dependent {statement}{where} is inside the {keyword} block at {block}; {why}."
        f"{excerpt}\nMove the {keyword} block outside the Function (around the call), or move the "
        f"{statement} out of the {keyword} block; if the error is a bug in the traced code, fix it."
    )


def _top_graph():
    graph = current_graph()
    while graph is not None and graph.parent is not None:
        graph = graph.parent
    return graph


def _is_tape_block(within: tuple[str, int]) -> bool:
    """A `with ag.GradientTape()` block: it records what the graph computes, so staging inside is
    what the user means, not something to report or refuse."""
    if within[0] != "with":
        return False
    from runtime.operators.gradient_tape import open_tape_lines

    origin = user_origin(5)
    return origin is not None and (origin.file, within[1]) in open_tape_lines()
