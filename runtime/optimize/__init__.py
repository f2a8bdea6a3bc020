"""Graph optimisation passes: constant folding, CSE, dead-code elimination.

Each pass is `Graph -> Graph` and recurses into cond/while subgraphs;
`optimize(graph)` runs them in the order that lets each help the next
(folding exposes duplicates, both leave dead nodes behind).
"""

from runtime.graph import Graph
from runtime.optimize.cse import eliminate_common_subexpressions
from runtime.optimize.dce import eliminate_dead_code
from runtime.optimize.fold import fold_constants
from runtime.optimize.gradient.merge import merge_taped_loops
from runtime.optimize.rewrite import walk

__all__ = ["optimize", "fold_constants", "eliminate_common_subexpressions", "eliminate_dead_code"]


def optimize(graph: Graph) -> Graph:
    """Fold constants, merge common subexpressions, drop dead code.

    The passes share the list of (sub)graphs while none of them changes the graph.
    """
    graphs = walk(graph)
    merged_loops = merge_taped_loops(graph, graphs)
    if merged_loops is not graph:
        graph, graphs = merged_loops, walk(merged_loops)
    folded = fold_constants(graph, graphs)
    if folded is not graph:
        graphs = walk(folded)
    merged = eliminate_common_subexpressions(folded, graphs)
    if merged is not folded:
        graphs = walk(merged)
    return eliminate_dead_code(merged, graphs)
