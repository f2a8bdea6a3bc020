"""A reference interpreter: runs a graph node by node on NumPy values.

It exists to check the compiler: every op runs through its `impl`, control
flow through plain Python over subgraphs, with no code generation and no
optimisation, so `interpret(g, *xs) == compile_graph(g)(*xs)` is the
differential test of codegen and of every optimisation pass.

    env[node] = get_op(node.op).impl(*[env[i] for i in node.inputs], **node.attrs)
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from runtime.compile import output_value
from runtime.graph import Graph, Node
from runtime.ops.registry import get_op

__all__ = ["interpret", "run_graph"]


def interpret(graph: Graph, *args: Any) -> list:
    """The outputs of `graph` on `args`, 0-d ones as NumPy scalars like the compiler's."""
    values = [v if isinstance(v, (np.ndarray, np.generic)) else np.asarray(v) for v in args]
    outputs = run_graph(graph, values, {})
    return [
        output_value(v) if isinstance(o.type, tuple) or o.type.dtype != object else v
        for v, o in zip(outputs, graph.outputs)
    ]


def run_graph(graph: Graph, args: list, outer: dict[Node, Any]) -> list:
    """Evaluate `graph` given its input values and the enclosing graph's environment."""
    env: dict[Node, Any] = dict(zip(graph.inputs, args))
    for node in graph.nodes:
        op = node.op
        if op == "input":
            continue
        if op == "capture":
            env[node] = outer[node.attrs["outer"]]
        elif op == "constant":
            env[node] = node.attrs["value"]
        elif op == "cond":
            branch = node.attrs["true"] if env[node.inputs[0]] else node.attrs["false"]
            env[node] = tuple(run_graph(branch, [], env))
        elif op == "while":
            env[node] = _while(node, env)
        else:
            spec = get_op(op)
            values = [env[i] for i in node.inputs]
            if spec.inplace and values:
                values[0] = copy.copy(values[0])
            env[node] = spec.impl(*values, **node.attrs)
    return [env[o] for o in graph.outputs]


def _while(node: Node, env: dict[Node, Any]) -> tuple:
    cond, body = node.attrs["cond"], node.attrs["body"]
    limit = node.attrs.get("maximum_iterations")
    count = len(body.inputs)
    values = [copy.copy(env[i]) if i.type.dtype == object else env[i] for i in node.inputs[:count]]
    iterations = 0
    while limit is None or iterations < limit:
        if not run_graph(cond, values, env)[0]:
            break
        values = run_graph(body, values, env)
        iterations += 1
    return tuple(values)
