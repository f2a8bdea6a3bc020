"""The one way to find a node's subgraphs and what they capture from outside.

Passes, backends and the drawing all walk cond/while bodies through these, so
a new control-flow opcode is taught here once (`opcodes.SUBGRAPH_FIELDS`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS

__all__ = ["has_subgraphs", "subgraphs", "named_subgraphs", "outer_inputs", "walk"]


def has_subgraphs(node: Node) -> bool:
    return node.op in SUBGRAPH_FIELDS


def subgraphs(node: Node) -> list[Graph]:
    """The subgraphs `node` holds, in their fixed order (true, false / cond, body); [] for others."""
    return [node.attrs[key] for key in SUBGRAPH_FIELDS.get(node.op, ())]


def named_subgraphs(node: Node) -> Iterator[tuple[str, Graph]]:
    """(attr name, subgraph) pairs, for display."""
    for key in SUBGRAPH_FIELDS.get(node.op, ()):
        yield key, node.attrs[key]


def outer_inputs(graphs: Sequence[Graph]) -> list[Node]:
    """The enclosing graph's nodes that `graphs` captured, each once, in capture order.

    A cond or while node lists these after its explicit inputs, so a backend
    passes every value a body reads from outside."""
    seen: dict[Node, None] = {}
    for graph in graphs:
        for capture in graph.captures.values():
            seen.setdefault(capture.attrs["outer"], None)
    return list(seen)


def walk(graph: Graph) -> list[Graph]:
    """`graph` and every subgraph nested in it, outermost first."""
    found = [graph]
    for current in found:
        for node in current.nodes:
            found.extend(subgraphs(node))
    return found
