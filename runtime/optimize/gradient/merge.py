"""merge_taped_loops: one forward loop where a gradient repeated it to record its iterations.

The gradient of a while loop adds a taped copy (`rules_control`): the same
loop that also pushes each iteration's state onto stacks, placed right
after the original. Readers of the original loop's outputs get the taped
loop's instead, and dead-code elimination drops the original:

    a = while(...)            # forward
    t = while(..., stacks)    # taped copy, attrs["taped_from"] is a
    y = a[0] * 2              ->   y = t[0] * 2      (a is now dead)
"""

from __future__ import annotations

from runtime.graph import Graph, Node
from runtime.optimize.rewrite import rewrite, walk

__all__ = ["merge_taped_loops"]


def merge_taped_loops(graph: Graph, graphs: list[Graph] | None = None) -> Graph:
    twins: dict[Node, Node] = {}
    for sub in walk(graph) if graphs is None else graphs:
        held = {id(n) for n in sub.nodes}
        for node in sub.nodes:
            original = node.attrs.get("taped_from") if node.op == "while" else None
            if original is not None and id(original) in held:
                twins.setdefault(original, node)
    if not twins:
        return graph
    taped = set(twins.values())
    copies: dict[tuple[Node, int], Node] = {}

    def hook(node: Node, inputs: tuple[Node, ...], new: Graph) -> Node | None:
        if node.op != "getitem":
            return None
        source, index = node.inputs[0], node.attrs["index"]
        if source in taped:
            made = new.add_node("getitem", inputs, node.attrs, node.type, node.origin, node.name)
            copies[(source, index)] = made
            return made
        if source in twins:
            return copies.get((twins[source], index))
        return None

    return rewrite(graph, hook)
