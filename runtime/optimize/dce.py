"""Dead-code elimination: keep only what the outputs and the effects need.

    a = x + 1            # unused
    ag.print(x)          # effectful: kept
    return x        ->   ag.print(x); return x

Effectful nodes (print, assign, assert, py_function) and cond/while nodes
whose subgraphs hold one are roots, like the outputs. Liveness flows from a
cond/while node into its subgraphs and back out through the captures its
subgraphs still use, so an outer value only a dead branch needed goes too.
"""

from __future__ import annotations

from runtime.graph import Graph, Node
from runtime.ops.registry import OPS
from runtime.optimize.rewrite import SUBGRAPHS, rewrite, subgraphs

__all__ = ["eliminate_dead_code", "has_effect"]

_STRUCTURAL = ("input", "capture", "constant")


def has_effect(node: Node) -> bool:
    """Whether running `node` does something beyond computing its value."""
    if node.op in _STRUCTURAL:
        return False
    if node.op in SUBGRAPHS:
        return any(has_effect(n) for sub in subgraphs(node) for n in sub.nodes)
    op = OPS.get(node.op)
    return op is None or op.effectful


def eliminate_dead_code(graph: Graph) -> Graph:
    """`graph` without the nodes no output or effect depends on.

    A cond also loses the outputs nobody reads (and what only they computed).
    """
    live: set[Node] = set()
    pruned: dict[Node, tuple[int, ...]] = {}
    _mark(graph, live, list(graph.outputs), pruned)
    return rewrite(graph, keep=live, outputs=pruned)


def _mark(graph: Graph, live: set[Node], roots: list[Node], pruned: dict) -> None:
    live.update(roots)
    live.update(n for n in graph.nodes if has_effect(n))
    readers: dict[Node, set[int]] = {}
    for node in graph.nodes:
        if node.op == "getitem" and node.inputs[0].op == "cond":
            readers.setdefault(node.inputs[0], set())
    for node in reversed(graph.nodes):
        if node not in live or node.op == "capture":
            continue
        if node.op == "getitem" and node.inputs[0] in readers:
            readers[node.inputs[0]].add(node.attrs["index"])
        if node.op not in SUBGRAPHS:
            live.update(node.inputs)
            continue
        subs = subgraphs(node)
        kept = None
        if node.op == "cond":
            kept = tuple(sorted(readers.get(node, ())))
            if len(kept) < len(node.type):
                pruned[node] = kept
        for sub in subs:
            sub_roots = sub.outputs if kept is None else [sub.outputs[k] for k in kept]
            _mark(sub, live, list(sub_roots), pruned)
        explicit = 1 if node.op == "cond" else len(node.attrs["body"].inputs)
        live.update(node.inputs[:explicit])
        for sub in subs:
            live.update(c.attrs["outer"] for c in sub.captures.values() if c in live)
