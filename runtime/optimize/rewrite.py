"""Copying a graph node by node: the skeleton every optimisation pass shares.

Nodes are frozen, so a pass builds a new graph. `rewrite` walks the old one
in order (recursing into cond/while subgraphs with the enclosing graph's old
-> new mapping, so captures point at the new outer nodes), lets a hook
replace each op node, skips nodes outside `keep`, and recomputes the inputs
of every cond/while node from what its new subgraphs still capture. A
captured constant is copied into the subgraph, so folding can go on inside.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from runtime.control_flow import outer_inputs
from runtime.graph import Graph, Node

__all__ = ["rewrite", "SUBGRAPHS", "subgraphs", "Hook"]

Hook = Callable[[Node, tuple[Node, ...], Graph], "Node | None"]
SUBGRAPHS = {"cond": ("true", "false"), "while": ("cond", "body")}


def subgraphs(node: Node) -> list[Graph]:
    """The subgraphs a cond/while node runs (none for other nodes)."""
    return [node.attrs[key] for key in SUBGRAPHS.get(node.op, ())]


def rewrite(graph: Graph, hook: Hook | None = None, keep: Collection[Node] | None = None) -> Graph:
    """A copy of `graph` where `hook(node, new_inputs, new_graph)` may replace op nodes."""
    return _copy(graph, hook, keep, None, {})


def _copy(graph: Graph, hook, keep, parent: Graph | None, outer: dict[Node, Node]) -> Graph:
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
            mapping[node] = _copy_control(node, new, mapping, hook, keep)
        else:
            inputs = tuple(mapping[i] for i in node.inputs)
            replacement = hook(node, inputs, new) if hook is not None else None
            if replacement is None:
                replacement = new.add_node(node.op, inputs, node.attrs, node.type, node.origin, node.name)
            mapping[node] = replacement
    new.set_outputs([mapping[o] for o in graph.outputs])
    return new.finish()


def _copy_control(node: Node, new: Graph, mapping: dict[Node, Node], hook, keep) -> Node:
    attrs = dict(node.attrs)
    subs = []
    for key in SUBGRAPHS[node.op]:
        attrs[key] = _copy(node.attrs[key], hook, keep, new, mapping)
        subs.append(attrs[key])
    explicit = 1 if node.op == "cond" else len(node.attrs["body"].inputs)
    inputs = tuple(mapping[i] for i in node.inputs[:explicit]) + tuple(outer_inputs(subs))
    return new.add_node(node.op, inputs, attrs, node.type, node.origin, node.name)
