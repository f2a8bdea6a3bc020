"""`gradient_graph`: a forward Graph in, a Graph computing its value and gradient out."""

from __future__ import annotations

from collections.abc import Sequence

from runtime.ir.graph import Graph
from runtime.ops.graph_copy import clone_into
from runtime.passes.gradient.build import Emitter, is_float
from runtime.passes.gradient.transform import backprop

__all__ = ["gradient_graph"]


def gradient_graph(forward: Graph, wrt: Sequence[int] | None = None, output: int = 0) -> Graph:
    """A new graph with `forward`'s inputs returning (output `output`, d sum(output) / d input for each in `wrt`).

        graph f(x): y = tanh(x); return y
        ->
        graph f_grad(x): y = tanh(x); g = ones_like(y); gx = g * (1 - y * y); return y, gx

    An input the output does not depend on (or an integer one) gets zeros.
    """
    if forward.parent is not None:
        raise AssertionError(f"gradient_graph takes a top-level graph\n{forward}")
    wrt = range(len(forward.inputs)) if wrt is None else wrt
    graph = Graph(f"{forward.name}_grad")
    inputs = [graph.add_input(n.type, n.name, n.origin) for n in forward.inputs]
    env = clone_into(graph, forward, dict(zip(forward.inputs, inputs)))
    target = env[forward.outputs[output]]
    if not is_float(target.type):
        raise ValueError(f"output {output} of {forward.name!r} is {target.type}; only a float output has a gradient")
    em = Emitter(graph, None)
    seed = em.call("ones_like", target)
    sweep = backprop(em, graph, [target], [seed], [inputs[i] for i in wrt])
    grads = []
    for i in wrt:
        g = sweep.materialized(inputs[i])
        grads.append(em.call("zeros_like", inputs[i]) if g is None else em.cast_like(g, inputs[i]))
    graph.set_outputs([target, *grads])
    return graph.finish()
