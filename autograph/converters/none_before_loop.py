"""none_before_loop: loop variables that start as None and that every iteration binds before reading.

    best = None
    while i < n:              # best: None before the loop, a Tensor after an iteration
        best = x[i]
        i += 1
    return best

A staged loop carries Tensors and numbers, so a None there is refused
unless nothing ever reads it: the body binds `best` before any read (its
test too, for a while), so the None only survives a loop that runs zero
times, like a name first bound inside the loop (API.md, "Decided details").
The converter names such variables in the loop's options
(`opts['bound_before_read']`); the staged loop then types them from a trace
of the body and checks, when the graph runs, that the loop ran at least once.

Only names that some `name = None` before the loop may bind, or parameters,
are named: every other loop variable holds what the code gave it.
"""

from __future__ import annotations

import gast

from autograph.analysis import Analyses

__all__ = ["bound_before_read"]


def bound_before_read(node: gast.While | gast.For, names: tuple[str, ...], analyses: Analyses) -> tuple[str, ...]:
    """The carried plain `names` that may be None when `node` starts and that no iteration reads before binding."""
    params = analyses.activity.params
    candidates = [n for n in names if n.isidentifier() and (n in params or _may_be_none(node, n, analyses))]
    if not candidates:
        return ()
    if not node.body or node.body[0] not in analyses.cfg.entry_of:
        return ()
    read = analyses.live_before(node.body[0])
    if isinstance(node, gast.While):
        read = read | analyses.activity.effects(node.test).reads
    return tuple(n for n in candidates if n not in read)


def _may_be_none(node: gast.stmt, name: str, analyses: Analyses) -> bool:
    """Whether a binding `name = None` (or `name: T = None`) may reach the loop."""
    for definition in analyses.definitions.definitions(analyses.cfg.entry_of[node], name):
        stmt = None if definition is None else definition.ast
        if type(stmt) in (gast.Assign, gast.AnnAssign) and _is_none(stmt.value):
            return True
    return False


def _is_none(value: gast.expr | None) -> bool:
    return type(value) is gast.Constant and value.value is None
