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
from runtime.passes.gradient.build import is_float

__all__ = ["SAVED_OPS", "candidates", "live_nodes", "prune"]

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

