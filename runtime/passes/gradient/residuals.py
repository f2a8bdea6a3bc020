"""Residuals of a differentiated while loop: forward values the backward loop reads from stacks.

The backward loop recomputes each iteration's body from the stacked loop
variables. For values whose vector-Jacobian product reads the op's own
result and that cost more than a few multiplies to recompute (tanh, exp,
sqrt, ...), the taped forward loop pushes the value it computed anyway on
a stack of its own, and the backward body reads it back in place of the
recomputation (what `jax.grad` over `lax.scan` keeps as residuals):

    taped:    while c(x): S.push(x); t = tanh(x); R.push(t); x = x + 0.1 * t
    backward: t = R[j]; gx = gx + 0.1 * gx * (1 - t * t)   # no tanh, and S unread

The backward body is first built with placeholders for the stacks
(`Placeholders`); `prune` then keeps what its outputs need, with the saved
values as leaves, so only the stacks it still reads (loop variables and
residuals alike) are pushed by the taped loop.
"""

from __future__ import annotations

from typing import Any

from runtime.ir.graph import Graph, Node
from runtime.ir.types import TensorType
from runtime.ops.graph_copy import clone_into
from runtime.passes.gradient.build import is_float

__all__ = ["SAVED_OPS", "candidates", "final_body", "live_nodes", "prune"]

# ops whose gradient rule reads the op's result and whose recomputation is more than arithmetic
SAVED_OPS = frozenset({"exp", "exp2", "expm1", "sqrt", "cbrt", "tan", "tanh"})


def candidates(body: Graph) -> list[Node]:
    """Top-level nodes of a loop body worth saving: a SAVED_OPS result of float type (not a
    handle) that depends on the loop's variables (an invariant one is the same every iteration)."""
    varying: set[Node] = set(body.inputs)
    found = []
    for node in body.nodes:
        if node.op in ("input", "capture", "constant") or not any(i in varying for i in node.inputs):
            continue
        varying.add(node)
        if node.op in SAVED_OPS and isinstance(node.type, TensorType) and is_float(node.type):
            found.append(node)
    return found


def live_nodes(graph: Graph, leaves: set[Node]) -> set[Node]:
    """The nodes of `graph` its outputs need, not looking past `leaves` (read from stacks instead)."""
    live: set[Node] = set()
    work = list(graph.outputs)
    while work:
        node = work.pop()
        if node in live:
            continue
        live.add(node)
        if node not in leaves:
            work.extend(node.inputs)
    return live


def prune(graph: Graph, live: set[Node]) -> None:
    """Drop the nodes of a scratch graph that nothing live uses (its inputs stay)."""
    inputs = set(graph.inputs)
    graph.nodes[:] = [n for n in graph.nodes if n in live or n in inputs]
    for outer, capture in list(graph.captures.items()):
        if capture not in live:
            del graph.captures[outer]


def final_body(scratch: Graph, live: set[Node], em: Any, loop_types: list, holders: dict[Node, tuple[str, int]],
               finals: list[Node], stacks: dict[int, Node], saved_stacks: dict[Node, Node]) -> Graph:
    """The backward body: the scratch one's live nodes, its placeholders now the taped loop's
    stacks and final values, and each saved value read from its stack."""
    prune(scratch, live)
    back = Graph("while_body", parent=em.graph)
    inputs = [back.add_input(t, "j" if n == 0 else "grad") for n, t in enumerate(loop_types)]
    mapping: dict[Node, Any] = dict(zip(scratch.inputs[: len(loop_types)], inputs))
    for holder, (kind, i) in holders.items():
        source = stacks.get(i) if kind == "stack" else finals[i]
        mapping[holder] = None if source is None else back.own(source)
    for clone, stack in saved_stacks.items():
        mapping[clone] = back.add_node("ta_read", (back.own(stack), inputs[0]), {"dense": True}, clone.type,
                                       em.origin, name="saved")
    env = clone_into(back, scratch, mapping, em.origin)
    back.set_outputs([env[o] for o in scratch.outputs])
    return back.finish()
