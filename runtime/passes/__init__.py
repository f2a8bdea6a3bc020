"""Graph optimisation passes: constant folding, CSE, dead-code elimination.

Each pass is `Graph -> Graph` and recurses into cond/while subgraphs;
`optimize(graph)` runs them in the order that lets each help the next
(folding exposes duplicates, both leave dead nodes behind).
"""

from runtime.ir.graph import Graph
from runtime.passes.cse import eliminate_common_subexpressions
from runtime.passes.dce import eliminate_dead_code
from runtime.passes.fold import fold_constants
from runtime.passes.rewrite import walk

__all__ = ["optimize", "fold_constants", "eliminate_common_subexpressions", "eliminate_dead_code"]


def optimize(graph: Graph) -> Graph:
    """Fold constants, merge common subexpressions, drop dead code.

    The passes share the list of (sub)graphs while none of them changes the graph.
    """
    graphs = walk(graph)
    folded = fold_constants(graph, graphs)
    if folded is not graph:
        graphs = walk(folded)
    merged = eliminate_common_subexpressions(folded, graphs)
    if merged is not folded:
        graphs = walk(merged)
    return eliminate_dead_code(merged, graphs)
