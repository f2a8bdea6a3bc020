"""merge_taped_loops: one forward loop where a gradient repeated it to record its iterations.

The gradient of a while loop adds a taped copy (`rules_control`): the same
loop that also pushes each iteration's state onto stacks, placed right
before the original. The copy stands for the original (its first outputs
are the original's), so the original, its effects included, runs no more:

    t = while(..., stacks)    # taped copy, attrs["taped_from"] is a
    a = while(...)            # the forward loop: gone
    y = a[0] * 2              ->   y = t[0] * 2
"""

from __future__ import annotations

from runtime.ir.graph import Graph, Node
from runtime.passes.rewrite import rewrite, walk

__all__ = ["merge_taped_loops"]


def merge_taped_loops(graph: Graph, graphs: list[Graph] | None = None) -> Graph:
    twins: dict[Node, Node] = {}
    for sub in walk(graph) if graphs is None else graphs:
        position = {id(n): i for i, n in enumerate(sub.nodes)}
        for node in sub.nodes:
            original = node.attrs.get("taped_from") if node.op == "while" else None
            if original is not None and position.get(id(original), -1) > position[id(node)]:
                twins.setdefault(original, node)
    if not twins:
        return graph
    return rewrite(graph, alias=twins)
