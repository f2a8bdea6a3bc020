"""Graph optimisation passes: constant folding, CSE, dead-code elimination.

Each pass is `Graph -> Graph` and recurses into cond/while subgraphs;
`optimize(graph)` runs them in the order that lets each help the next
(folding exposes duplicates, both leave dead nodes behind).
"""

from runtime.graph import Graph
from runtime.optimize.cse import eliminate_common_subexpressions
from runtime.optimize.dce import eliminate_dead_code
from runtime.optimize.fold import fold_constants

__all__ = ["optimize", "fold_constants", "eliminate_common_subexpressions", "eliminate_dead_code"]


def optimize(graph: Graph) -> Graph:
    """Fold constants, merge common subexpressions, drop dead code."""
    return eliminate_dead_code(eliminate_common_subexpressions(fold_constants(graph)))
