"""Closure writes: the names of a function that its nested functions set through `nonlocal`.

A staged if or loop carries the names it assigns. A call of a nested function
that sets one of the enclosing function's names assigns it too, out of sight
of the statement's own activity:

    count = 0
    def bump():
        nonlocal count
        count += 1
    for v in x:         # staged: `count` must be a loop variable,
        bump()          # or the loop adds 1 once, while tracing

`ClosureWrites.of_function(activity)` maps each function defined in `fn`'s own code
to the names it declares `nonlocal`, with those of the sibling functions it
reads (calls) folded in, so a helper calling `bump` sets `count` as well.
`closure_reads(activity)` gives the names nested scopes may read, which must
never hold a placeholder. `in_block(block, activity)` gives the names a block sets that way: those of
every such function the block reads; `setters(node, activity)` says which
function sets each (a staged while's test may not, and the error names it).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from autograph.analysis.activity import Activity, declarations, expression_effects, free_names
from autograph.analysis.traversal import BLOCK_FIELDS

__all__ = ["ClosureWrites", "closure_reads"]

_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda})


def _own_functions(body: list[gast.stmt]) -> list[gast.FunctionDef]:
    """Functions defined in `body`'s own code (any block depth), not inside other scopes."""
    found = []
    stack = list(body)
    while stack:
        node = stack.pop()
        cls = type(node)
        if cls is gast.FunctionDef:
            found.append(node)
        elif cls not in _SCOPES:
            for name in BLOCK_FIELDS[cls]:
                block = getattr(node, name, None)
                if type(block) is list:
                    stack.extend(block)
    return found


@dataclass(frozen=True)
class ClosureWrites:
    """Nested function name -> the enclosing function's names a call of it may set."""

    writers: dict[str, frozenset[str]]

    @classmethod
    def of_function(cls, activity: Activity) -> ClosureWrites:
        """Only names the function itself binds or declares nonlocal: a helper may carry those."""
        body = activity.fn.body if isinstance(activity.fn.body, list) else []
        functions = _own_functions(body)
        direct = {f.name: declarations(f.body)[1] for f in functions}
        if not any(direct.values()):
            return cls({})
        own = activity.local_names() | activity.nonlocals
        direct = {name: names & own for name, names in direct.items()}
        calls = {f.name: free_names(f) & direct.keys() for f in functions}
        writers = dict(direct)
        changed = True
        while changed:  # a helper that calls a writer is a writer: fold to a fixed point
            changed = False
            for name, called in calls.items():
                found = writers[name].union(*(writers[c] for c in called))
                if found != writers[name]:
                    writers[name] = found
                    changed = True
        return cls({name: names for name, names in writers.items() if names})

    def in_block(self, block: list[gast.stmt], activity: Activity) -> frozenset[str]:
        """Names the nested functions that `block` reads (calls, or passes on) may set."""
        if not self.writers:
            return frozenset()
        found: set[str] = set()
        for stmt in block:
            for name in activity.effects(stmt).reads & self.writers.keys():
                found |= self.writers[name]
        return frozenset(found)

    def setters(self, node: gast.AST, activity: Activity) -> dict[str, str]:
        """Each name the nested functions `node` reads may set -> the first such function, by name.

        Only for error messages: a staged while's test may not set a loop
        variable, and the error names the function that does (`bump` sets `n`).
        """
        found: dict[str, str] = {}
        if not self.writers:
            return found
        for function in sorted(activity.effects(node).reads & self.writers.keys()):
            for name in self.writers[function]:
                found.setdefault(name, function)
        return found


def closure_reads(activity: Activity) -> frozenset[str]:
    """Names of the function its nested scopes may read: `activity.captured`, less those its
    nested defs only assign through `nonlocal` (`def record(v): nonlocal last; last = v`),
    which no closure ever reads, so a placeholder in them is never seen."""
    captured = activity.captured
    body = activity.fn.body if isinstance(activity.fn.body, list) else []
    set_only: set[str] = set()
    read: set[str] = set()
    for function in _own_functions(body):
        nonlocals = declarations(function.body)[1]
        reads = frozenset().union(*(expression_effects(s).reads for s in function.body)) if nonlocals else frozenset()
        only_set = nonlocals - reads
        set_only |= only_set
        read |= free_names(function) - only_set
    return captured - (set_only - read)
