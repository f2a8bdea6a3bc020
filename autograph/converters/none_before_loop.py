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

Only names the function sets to None somewhere (`name = None`, `name: T =
None`), or parameters, are named: the test costs one walk of the function's
statements, and the runtime checks the value itself (a name is typed from
the body only when it is None as the loop starts).
"""

from __future__ import annotations

import gast

from autograph.analysis import Analyses
from autograph.analysis.traversal import statements

__all__ = ["bound_before_read", "set_to_none"]


def set_to_none(body: list[gast.stmt]) -> frozenset[str]:
    """The plain names some statement of `body` (nested blocks included) sets to None."""
    found: set[str] = set()
    for stmt in statements(body):
        kind = type(stmt)
        if kind is gast.Assign and _is_none(stmt.value):
            found.update(t.id for t in stmt.targets if type(t) is gast.Name)
        elif kind is gast.AnnAssign and _is_none(stmt.value) and type(stmt.target) is gast.Name:
            found.add(stmt.target.id)
    return frozenset(found)


def bound_before_read(
    node: gast.While | gast.For, names: tuple[str, ...], analyses: Analyses, none: frozenset[str]
) -> tuple[str, ...]:
    """The carried `names` that may be None when `node` starts (in `none`, the names the function
    sets to None, or parameters) and that no iteration reads before binding."""
    params = analyses.activity.params
    candidates = [n for n in names if n in none or n in params]
    if not candidates or not node.body or node.body[0] not in analyses.cfg.entry_of:
        return ()
    read = analyses.live_before(node.body[0])
    if isinstance(node, gast.While):
        read = read | analyses.activity.effects(node.test).reads
    return tuple(n for n in candidates if n not in read)


def _is_none(value: gast.expr | None) -> bool:
    return type(value) is gast.Constant and value.value is None
