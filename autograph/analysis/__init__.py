"""Static analysis of one function's gast tree, computed once into an `Analyses` object.

Results live in side tables keyed by node (never as attributes on gast nodes):

    analyses = analyze(fn)
    analyses.activity.modified(loop.body)
    analyses.liveness.before(analyses.cfg.head_of[loop])
    analyses.definitions.may_be_unbound(analyses.cfg.entry_of[stmt], "y")
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from autograph.analysis.activity import Activity
from autograph.analysis.cfg import Cfg, build_cfg
from autograph.analysis.closure_writes import ClosureWrites, closure_reads
from autograph.analysis.composites import CompositeTargets
from autograph.analysis.liveness import Liveness, compute_liveness
from autograph.analysis.name_masks import NameMasks
from autograph.analysis.reaching_definitions import (
    ReachingDefinitions,
    compute_reaching_definitions,
)

__all__ = ["Analyses", "analyze"]


@dataclass
class Analyses:
    """Activity, CFG, liveness and reaching definitions of one function; composite targets on demand."""

    activity: Activity
    cfg: Cfg
    liveness: Liveness
    definitions: ReachingDefinitions
    # names the function's own code binds, less parameters and names declared global or nonlocal
    local_names: frozenset[str] = frozenset()
    composites: CompositeTargets = field(default_factory=CompositeTargets)
    _closure_writes: ClosureWrites | None = None
    _closure_reads: frozenset[str] | None = None

    def closure_writes(self, block: list[gast.AST]) -> frozenset[str]:
        """Names the nested functions `block` calls set through `nonlocal` (see closure_writes.py)."""
        return self._writes().in_block(block, self.activity)

    def closure_setters(self, node: gast.AST) -> dict[str, str]:
        """Name -> the nested function `node` calls that sets it through `nonlocal`."""
        return self._writes().setters(node, self.activity)

    def closure_reads(self) -> frozenset[str]:
        """Names nested scopes may read, so never given a placeholder (see closure_writes.py)."""
        if self._closure_reads is None:
            self._closure_reads = closure_reads(self.activity)
        return self._closure_reads

    def _writes(self) -> ClosureWrites:
        if self._closure_writes is None:
            self._closure_writes = ClosureWrites.of_function(self.activity)
        return self._closure_writes

    def live_after(self, stmt: gast.stmt) -> frozenset[str]:
        return self.liveness.before(self.cfg.join_of[stmt])

    def live_before(self, stmt: gast.stmt) -> frozenset[str]:
        return self.liveness.before(self.cfg.entry_of[stmt])

    def live_at_head(self, loop: gast.stmt) -> frozenset[str]:
        """Live when the loop decides whether to go on (before or after its test's own bindings)."""
        head = self.cfg.head_of[loop]
        return self.liveness.before(head) | self.liveness.after(head)

    def may_be_unbound(self, stmt: gast.stmt, name: str) -> bool:
        return self.definitions.may_be_unbound(self.cfg.entry_of[stmt], name)

    def unbound(self, stmt: gast.stmt, name: str) -> bool:
        """No binding of `name` reaches `stmt` (so initialising it there overwrites nothing)."""
        return self.definitions.unbound(self.cfg.entry_of[stmt], name)


def analyze(
    fn: gast.AST,
    captured: frozenset[str] | None = None,
    loop_reads: dict[gast.AST, list[str]] | None = None,
    declared: Activity | None = None,
) -> Analyses:
    """All analyses of `fn` (a FunctionDef), in dependency order.

    `captured`: names the user's own closures capture (live everywhere); by
    default those of every nested function and lambda in `fn`. `loop_reads`:
    names each for loop's head reads (its extra test's flags). `declared`: an
    activity of `fn` taken before rewrites that add no parameter, `global` or
    `nonlocal` to its own code (the jump and expression passes): the parameters
    and declarations are read from it, not from the statements again.
    """
    if declared is None:
        activity = Activity.of_function(fn)
    else:
        activity = Activity(fn, declared.params, declared.globals, declared.nonlocals)
    cfg = build_cfg(fn, activity, loop_reads)
    masks = NameMasks(cfg)  # one numbering of names for both fixed points
    liveness = compute_liveness(cfg, activity.captured if captured is None else captured, masks)
    # every binding of the function's own code is in some CFG node: no second walk for its local names
    written = 0
    for mask in masks.writes.values():
        written |= mask
    locals_ = masks.names_of(written) - activity.params - activity.globals - activity.nonlocals
    definitions = compute_reaching_definitions(cfg, locals_, masks)
    return Analyses(activity, cfg, liveness, definitions, locals_)
