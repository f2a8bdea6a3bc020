"""Copying a graph node by node: the skeleton every optimisation pass shares.

Nodes are frozen, so a pass builds a new graph. `rewrite` walks the old one
in order (recursing into cond/while subgraphs with the enclosing graph's old
-> new mapping, so captures point at the new outer nodes), lets a hook
replace each op node, skips nodes outside `keep`, and recomputes the inputs
of every cond/while node from what its new subgraphs still capture. A
captured constant is copied into the subgraph, so folding can go on inside.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS
from runtime.ir.subgraphs import outer_inputs, subgraphs, walk

__all__ = ["rewrite", "Hook", "copies_as_is"]

Hook = Callable[[Node, tuple[Node, ...], Graph], "Node | None"]
def copies_as_is(graph: Graph, graphs: list[Graph] | None = None) -> bool:
    """Whether `rewrite` without a hook, `keep` or `outputs` would rebuild `graph` node for node.

    It would not if some graph is still open, a subgraph captures a constant
    (the copy holds the constant itself), or a cond/while node's inputs are not
    the ones the copy recomputes from its subgraphs' captures. Passes with
    nothing to change return such a graph as it is instead of copying it.
    `graphs` is `walk(graph)`, when the caller has it already.
    """
    if graph.parent is not None:
        return False
    for sub in walk(graph) if graphs is None else graphs:
        if not sub.finished:
            return False
        for node in sub.nodes:
            if node.op == "capture" and node.attrs["outer"].op == "constant":
                return False
            if node.op in SUBGRAPH_FIELDS and not _inputs_current(node):
                return False
    return True


def _inputs_current(node: Node) -> bool:
    subs = subgraphs(node)
    count = 1 if node.op == "cond" else len(node.attrs["body"].inputs)
    return node.inputs == node.inputs[:count] + tuple(outer_inputs(subs))


def rewrite(
    graph: Graph, hook: Hook | None = None, keep: Collection[Node] | None = None,
    outputs: Mapping[Node, tuple[int, ...]] | None = None, alias: Mapping[Node, Node] | None = None,
) -> Graph:
    """A copy of `graph` where `hook(node, new_inputs, new_graph)` may replace op nodes.

    `keep` limits the copy to those nodes (graph inputs are always kept);
    `outputs` maps a cond or while node to the output indices to keep: its
    getitems are renumbered, and a while loop also drops the loop variables
    (initial values, subgraph inputs, body outputs) that are not kept.
    `alias` maps a node to an earlier node of the same graph whose copy stands for it.
    """
    return _Copier(hook, keep, outputs or {}, alias or {}).copy(graph, None, {})


class _Copier:
    """One rewrite: the hook, the nodes to keep and the outputs to keep per control node."""

    def __init__(self, hook: Hook | None, keep, outputs: Mapping[Node, tuple[int, ...]],
                 alias: Mapping[Node, Node] | None = None) -> None:
        self.hook, self.keep, self.outputs = hook, keep, outputs
        self.alias = alias or {}

    def copy(
        self, graph: Graph, parent: Graph | None, outer: dict[Node, Node],
        kept_outputs: tuple[int, ...] | None = None, kept_inputs: tuple[int, ...] | None = None,
    ) -> Graph:
        new = Graph(graph.name, parent=parent)
        mapping: dict[Node, Node] = {}
        dropped = set() if kept_inputs is None else {
            n for i, n in enumerate(graph.inputs) if i not in kept_inputs
        }
        for node in graph.nodes:
            if node.op == "input":
                if node not in dropped:
                    mapping[node] = new.add_input(node.type, node.name, node.origin)  # type: ignore[arg-type]
            elif node in self.alias:
                mapping[node] = mapping[self.alias[node]]
            elif self.keep is None or node in self.keep:
                mapping[node] = self.copy_node(node, new, mapping, outer)
        outs = graph.outputs if kept_outputs is None else [graph.outputs[k] for k in kept_outputs]
        new.set_outputs([mapping[o] for o in outs])
        return new.finish()

    def copy_node(self, node: Node, new: Graph, mapping: dict[Node, Node], outer: dict[Node, Node]) -> Node:
        if node.op == "capture":
            target = outer[node.attrs["outer"]]
            if target.op == "constant":
                return new.add_node("constant", (), target.attrs, target.type, target.origin, target.name)
            return new.own(target)
        if node.op in SUBGRAPH_FIELDS:
            return self.copy_control(node, new, mapping)
        if node.op == "getitem" and node.inputs[0] in self.outputs:
            index = self.outputs[node.inputs[0]].index(node.attrs["index"])
            source = mapping[node.inputs[0]]
            return new.add_node("getitem", (source,), {"index": index}, node.type, node.origin, node.name)
        inputs = tuple([mapping[i] for i in node.inputs])
        replacement = self.hook(node, inputs, new) if self.hook is not None else None
        if replacement is None:
            replacement = new.add_node(node.op, inputs, node.attrs, node.type, node.origin, node.name)
        return replacement

    def copy_control(self, node: Node, new: Graph, mapping: dict[Node, Node]) -> Node:
        attrs = dict(node.attrs)
        kept = self.outputs.get(node)
        if node.op == "cond":
            attrs["true"] = self.copy(node.attrs["true"], new, mapping, kept)
            attrs["false"] = self.copy(node.attrs["false"], new, mapping, kept)
            explicit = node.inputs[:1]
        else:
            count = len(node.attrs["body"].inputs)
            attrs["cond"] = self.copy(node.attrs["cond"], new, mapping, None, kept)
            attrs["body"] = self.copy(node.attrs["body"], new, mapping, kept, kept)
            explicit = node.inputs[:count] if kept is None else tuple(node.inputs[k] for k in kept)
        subs = [attrs[key] for key in SUBGRAPH_FIELDS[node.op]]
        inputs = tuple(mapping[i] for i in explicit) + tuple(outer_inputs(subs))
        type_ = node.type if kept is None else tuple(node.type[k] for k in kept)
        return new.add_node(node.op, inputs, attrs, type_, node.origin, node.name)
