"""written_liveness: what the function as written reads after an if or at a loop's head, before jumps become flags.

The jump passes turn `break` into a flag, and a loop's `else:` into an if on
it; the analyses that plan control flow then run on the lowered code, where
the flag ties paths together that they cannot tell apart. The search idiom:

    for i in ag.range(n):                     break_ = False
        if x[i] < 0:                          for i in ag.range(n):      # stops on break_
            idx = i                               if x[i] < 0:
            break              ->                     idx = i
    else:                                             break_ = True
        idx = -1                              if not break_:
    return idx                                    idx = -1
                                              return idx

As written, `idx` is dead where the if's false branch ends (the loop goes
on, and ends in the `else:`, which binds it) and at the loop's head. Lowered,
`if not break_:` may skip its binding, so `idx` looks live after the if on
both sides, and the staged if would refuse a name bound in one branch only.

`record` runs the analyses once more on the function as written (only when
it has a loop with both `break` and `else:`) and keeps, per if, the names
live where it ends and which branches fall through to there (no jump in
them), and per loop, the names live at its head. Control flow then passes:

- to `if_stmt`, `unread=(true, false)`: names whose value after that branch
  is never read, so a staged if fills them with zeros there when the branch
  leaves them unbound;
- to a loop, `opts['unread_at_head']`: names bound inside the loop that
  nothing reads from the head (the next iteration or the code after the
  loop, through its `else:`), so a staged loop need not check that it ran
  at least once before they are read.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from autograph.analysis import analyze
from autograph.analysis.activity import Activity
from autograph.analysis.traversal import statements
from autograph.converters.context import Context
from autograph.converters.guards import contains_jump

__all__ = ["WrittenLiveness", "record", "unread_after_if", "unread_at_head"]

_LOOPS = (gast.For, gast.While)
_JUMPS = ((gast.Break, False), (gast.Continue, False), (gast.Return, True), (gast.Raise, True))


@dataclass(frozen=True)
class WrittenLiveness:
    """Names live at one point of the function as written, of those its own code binds.

    `falls`: for an if, whether its true and false branch reach its end on
    every path (hold no jump); for a loop, (True, True).
    """

    live: frozenset[str]
    known: frozenset[str]
    falls: tuple[bool, bool] = (True, True)

    def unread(self, names: tuple[str, ...], side: int) -> tuple[str, ...]:
        if not self.falls[side]:
            return ()
        return tuple(n for n in names if n in self.known and n not in self.live)


def record(fn: gast.FunctionDef, ctx: Context, captured: frozenset[str], activity: Activity) -> None:
    """Keep the liveness of `fn` as it is now (before the jump passes) in `ctx.written_liveness`."""
    analyses = analyze(fn, captured, None, activity)
    known = analyses.local_names
    cfg = analyses.cfg
    for stmt in statements(fn.body):
        if type(stmt) is gast.If and stmt in cfg.join_of:
            falls = (not _jumps(stmt.body), not _jumps(stmt.orelse))
            ctx.written_liveness[stmt] = WrittenLiveness(analyses.live_after(stmt), known, falls)
        elif isinstance(stmt, _LOOPS) and stmt in cfg.head_of:
            ctx.written_liveness[stmt] = WrittenLiveness(analyses.live_at_head(stmt), known)


def _jumps(block: list[gast.stmt]) -> bool:
    """Whether a path through `block` may leave it other than at its end."""
    return any(contains_jump(s, jump, into_loops) for s in block for jump, into_loops in _JUMPS)


def unread_after_if(ctx: Context, node: gast.If, names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Of the if's carried `names`, those never read after its true and after its false branch."""
    found = ctx.written_liveness.get(node)
    if found is None:
        return (), ()
    return found.unread(names, 0), found.unread(names, 1)


def unread_at_head(ctx: Context, node: gast.stmt, names: tuple[str, ...]) -> tuple[str, ...]:
    """Of a loop's carried `names`, those nothing reads from its head, as written."""
    found = ctx.written_liveness.get(node)
    return () if found is None else found.unread(names, 0)
