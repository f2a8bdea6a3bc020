"""Graph optimisation passes: folding, simplification, CSE, loop-invariant code motion, dead code.

Each pass is `Graph -> Graph` and recurses into cond/while subgraphs;
`optimize(graph)` runs them in the order that lets each help the next
(folding exposes duplicates and simplifications, hoisting moves
loop-invariant work out of loops, all leave dead nodes behind). With
`verify=True`, or the environment variable AUTOGRAPH_VERIFY_PASSES=1 (the
test suite sets it), `Graph.verify` checks the IR's invariants before and
after every pass, so a pass that breaks one is named.
"""

import os

from runtime.ir.graph import Graph
from runtime.ops.registry import OPS
from runtime.passes.cse import eliminate_common_subexpressions
from runtime.passes.dce import eliminate_dead_code
from runtime.passes.fold import fold_constants
from runtime.passes.gradient.merge import merge_taped_loops
from runtime.passes.hoist import hoist_invariants
from runtime.passes.rewrite import walk
from runtime.passes.simplify import simplify, simplify_and_merge

__all__ = ["optimize", "fold_constants", "eliminate_common_subexpressions", "simplify", "hoist_invariants",
           "eliminate_dead_code"]


def optimize(graph: Graph, verify: bool | None = None) -> Graph:
    """Fold constants, simplify, merge common subexpressions, hoist loop invariants, drop dead code.

    The passes share the list of (sub)graphs while none of them changes the graph.
    """
    if verify is None:
        verify = os.environ.get("AUTOGRAPH_VERIFY_PASSES") == "1"
    if verify:
        _verified(graph, "the traced graph")
    graphs = walk(graph)
    merged_loops = merge_taped_loops(graph, graphs)  # a gradient's taped loop replaces its forward loop
    if merged_loops is not graph:
        graph, graphs = merged_loops, walk(merged_loops)
    folded = fold_constants(graph, graphs)
    if folded is not graph:
        graphs = walk(folded)
    if verify:
        _verified(folded, "constant folding")
    merged = simplify_and_merge(folded, graphs)  # one copy for both passes
    if merged is not folded:
        graphs = walk(merged)
    if verify:
        _verified(merged, "algebraic simplification and common-subexpression elimination")
    hoisted = hoist_invariants(merged, graphs)
    if hoisted is not merged:
        graphs = walk(hoisted)
    if verify:
        _verified(hoisted, "loop-invariant code motion")
    cleaned = eliminate_dead_code(hoisted, graphs)
    if verify:
        _verified(cleaned, "dead-code elimination")
    return cleaned


def _verified(graph: Graph, after: str) -> None:
    try:
        graph.verify(OPS)
    except AssertionError as error:
        raise AssertionError(f"the graph after {after} breaks an IR invariant: {error}") from None
