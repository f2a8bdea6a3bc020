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

from runtime.control_flow import outer_inputs
from runtime.graph import Graph, Node

__all__ = ["rewrite", "SUBGRAPHS", "subgraphs", "Hook"]

Hook = Callable[[Node, tuple[Node, ...], Graph], "Node | None"]
SUBGRAPHS = {"cond": ("true", "false"), "while": ("cond", "body")}


def subgraphs(node: Node) -> list[Graph]:
    """The subgraphs a cond/while node runs (none for other nodes)."""
    return [node.attrs[key] for key in SUBGRAPHS.get(node.op, ())]


def rewrite(
    graph: Graph, hook: Hook | None = None, keep: Collection[Node] | None = None,
    outputs: Mapping[Node, tuple[int, ...]] | None = None,
) -> Graph:
    """A copy of `graph` where `hook(node, new_inputs, new_graph)` may replace op nodes.

    `keep` limits the copy to those nodes (inputs are always kept); `outputs`
    maps a cond node to the output indices to keep (its getitems are renumbered).
    """
    return _Copier(hook, keep, outputs or {}).copy(graph, None, {}, None)


class _Copier:
    def __init__(self, hook, keep, outputs) -> None:
        self.hook, self.keep, self.outputs = hook, keep, outputs

    def copy(self, graph: Graph, parent: Graph | None, outer: dict[Node, Node], kept) -> Graph:
        return _copy(self, graph, parent, outer, kept)


def _copy(self: _Copier, graph: Graph, parent: Graph | None, outer: dict[Node, Node], kept) -> Graph:
    hook, keep = self.hook, self.keep
    new = Graph(graph.name, parent=parent)
    mapping: dict[Node, Node] = {}
    for node in graph.nodes:
        if node.op == "input":
            mapping[node] = new.add_input(node.type, node.name, node.origin)  # type: ignore[arg-type]
        elif keep is not None and node not in keep:
            continue
        elif node.op == "capture":
            target = outer[node.attrs["outer"]]
            if target.op == "constant":
                mapping[node] = new.add_node("constant", (), target.attrs, target.type, target.origin, target.name)
            else:
                mapping[node] = new.own(target)
        elif node.op in SUBGRAPHS:
            mapping[node] = _copy_control(self, node, new, mapping)
        elif node.op == "getitem" and node.inputs[0] in self.outputs:
            index = self.outputs[node.inputs[0]].index(node.attrs["index"])
            source = mapping[node.inputs[0]]
            mapping[node] = new.add_node("getitem", (source,), {"index": index}, node.type, node.origin, node.name)
        else:
            inputs = tuple(mapping[i] for i in node.inputs)
            replacement = hook(node, inputs, new) if hook is not None else None
            if replacement is None:
                replacement = new.add_node(node.op, inputs, node.attrs, node.type, node.origin, node.name)
            mapping[node] = replacement
    outs = graph.outputs if kept is None else [graph.outputs[k] for k in kept]
    new.set_outputs([mapping[o] for o in outs])
    return new.finish()


def _copy_control(self: _Copier, node: Node, new: Graph, mapping: dict[Node, Node]) -> Node:
    attrs = dict(node.attrs)
    kept = self.outputs.get(node)
    subs = []
    for key in SUBGRAPHS[node.op]:
        attrs[key] = self.copy(node.attrs[key], new, mapping, kept)
        subs.append(attrs[key])
    explicit = 1 if node.op == "cond" else len(node.attrs["body"].inputs)
    inputs = tuple(mapping[i] for i in node.inputs[:explicit]) + tuple(outer_inputs(subs))
    type_ = node.type if kept is None else tuple(node.type[k] for k in kept)
    return new.add_node(node.op, inputs, attrs, type_, node.origin, node.name)
