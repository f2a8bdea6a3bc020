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

from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS
from runtime.ir.subgraphs import subgraphs, walk
from runtime.ops.registry import OPS
from runtime.passes.rewrite import copies_as_is, rewrite

__all__ = ["eliminate_dead_code", "has_effect"]

_STRUCTURAL = ("input", "capture", "constant")


def has_effect(node: Node, known: dict[Node, bool] | None = None) -> bool:
    """Whether running `node` does something beyond computing its value.

    `known` remembers the answers for cond/while nodes, so a pass that asks
    about every nesting level reads each subgraph once.
    """
    if node.op in _STRUCTURAL:
        return False
    if node.op in SUBGRAPH_FIELDS:
        if known is None:
            known = {}
        answer = known.get(node)
        if answer is None:
            answer = known[node] = any(has_effect(n, known) for sub in subgraphs(node) for n in sub.nodes)
        return answer
    op = OPS.get(node.op)
    return op is None or op.effectful


def eliminate_dead_code(graph: Graph, graphs: list[Graph] | None = None) -> Graph:
    """`graph` without the nodes no output or effect depends on.

    A cond also loses the outputs nobody reads (and what only they computed).
    `graphs` is `walk(graph)`, when the caller has it already.
    """
    live: set[Node] = set()
    pruned: dict[Node, tuple[int, ...]] = {}
    _mark(graph, live, list(graph.outputs), pruned, {})
    graphs = walk(graph) if graphs is None else graphs
    if not pruned and all(
        node in live or node.op == "input" for sub in graphs[1:] for node in sub.nodes
    ) and copies_as_is(graph, graphs):
        # Subgraphs keep every node: the copy would share them as they are. The
        # dead nodes, if any, are the outer graph's own (a loop's test evaluated
        # once before staging, loop outputs nobody reads): leave them out.
        dead = {node for node in graph.nodes if node not in live and node.op != "input"}
        return graph.without(dead) if dead else graph
    return rewrite(graph, keep=live, outputs=pruned)


def _mark(graph: Graph, live: set[Node], roots: list[Node], pruned: dict, effects: dict) -> None:
    live.update(roots)
    live.update(n for n in graph.nodes if has_effect(n, effects))
    readers: dict[Node, set[int]] = {}
    for node in graph.nodes:
        if node.op == "getitem" and node.inputs[0].op in SUBGRAPH_FIELDS:
            readers.setdefault(node.inputs[0], set())
    for node in reversed(graph.nodes):
        if node not in live or node.op == "capture":
            continue
        if node.op == "getitem" and node.inputs[0] in readers:
            readers[node.inputs[0]].add(node.attrs["index"])
        if node.op not in SUBGRAPH_FIELDS:
            live.update(node.inputs)
            continue
        if node.op == "while":
            _mark_loop(node, live, readers.get(node, set()), pruned, effects)
            continue
        kept = tuple(sorted(readers.get(node, ())))
        _note_pruning(pruned, node, kept, len(node.type))
        for sub in subgraphs(node):
            _mark(sub, live, [sub.outputs[k] for k in kept], pruned, effects)
        live.add(node.inputs[0])
        for sub in subgraphs(node):
            live.update(c.attrs["outer"] for c in sub.captures.values() if c in live)


def _mark_loop(node: Node, live: set[Node], read: set[int], pruned: dict, effects: dict) -> None:
    """Keep the loop variables read after the loop, and those the test, effects or kept ones need.

    A variable the body computes but nothing needs (not read after the loop,
    not used by the test, an effect or another kept variable) is dropped with
    everything that computed it.
    """
    test, body = node.attrs["cond"], node.attrs["body"]
    # The test is marked whole, whatever is kept: once, and the variables it reads are
    # kept from the first round on (fixpoints reached in one marking of the body, not two).
    tested: set[Node] = set()
    _mark(test, tested, list(test.outputs), pruned, effects)
    needed = set(read) | {k for k, inp in enumerate(test.inputs) if inp in tested}
    while True:
        trial = set(tested)
        _mark(body, trial, [body.outputs[k] for k in sorted(needed)], pruned, effects)
        more = {k for k in range(len(body.inputs)) if body.inputs[k] in trial or test.inputs[k] in trial}
        if more <= needed:
            break
        needed |= more
    live.update(trial)
    kept = tuple(sorted(needed))
    _note_pruning(pruned, node, kept, len(body.inputs))
    live.update(node.inputs[k] for k in kept)
    for sub in (test, body):
        live.update(c.attrs["outer"] for c in sub.captures.values() if c in live)


def _note_pruning(pruned: dict, node: Node, kept: tuple[int, ...], count: int) -> None:
    """Record the outputs to keep (a later, wider marking of a loop body may keep them all)."""
    if len(kept) < count:
        pruned[node] = kept
    else:
        pruned.pop(node, None)
