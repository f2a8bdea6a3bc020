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

from runtime.backends.numpy.compiler import output_value
from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import CAPTURE, COND, CONSTANT, INPUT, WHILE
from runtime.ops.registry import get_op

__all__ = ["Interpreter", "interpret", "run_graph"]


class Interpreter:
    """Runs a graph node by node: one method per structural opcode, `op` for registered ops.

    A subclass changes how one kind of node runs (another array library, a
    tracer of its own) and inherits the walk over graphs and subgraphs."""

    def run_graph(self, graph: Graph, args: list, outer: dict[Node, Any]) -> list:
        """The values of `graph`'s outputs given its inputs and the enclosing graph's environment."""
        env: dict[Node, Any] = dict(zip(graph.inputs, args))
        for node in graph.nodes:
            method = _METHODS.get(node.op)
            if method is None:
                env[node] = self.op(node, [env[i] for i in node.inputs])
            elif method:
                env[node] = getattr(self, method)(node, env, outer)
        return [env[o] for o in graph.outputs]

    def capture(self, node: Node, env: dict[Node, Any], outer: dict[Node, Any]) -> Any:
        return outer[node.attrs["outer"]]

    def constant(self, node: Node, env: dict[Node, Any], outer: dict[Node, Any]) -> Any:
        return node.attrs["value"]

    def cond(self, node: Node, env: dict[Node, Any], outer: dict[Node, Any]) -> tuple:
        branch = node.attrs["true"] if env[node.inputs[0]] else node.attrs["false"]
        return tuple(self.run_graph(branch, [], env))

    def while_(self, node: Node, env: dict[Node, Any], outer: dict[Node, Any]) -> tuple:
        cond, body = node.attrs["cond"], node.attrs["body"]
        limit = node.attrs.get("maximum_iterations")
        count = len(body.inputs)
        values = [copy.copy(env[i]) if i.type.dtype == object else env[i] for i in node.inputs[:count]]
        iterations = 0
        while limit is None or iterations < limit:
            if not self.run_graph(cond, values, env)[0]:
                break
            values = self.run_graph(body, values, env)
            iterations += 1
        return tuple(values)

    def op(self, node: Node, values: list) -> Any:
        """A registered op, through its NumPy reference (`Op.impl`)."""
        spec = get_op(node.op)
        if spec.inplace and values:
            values[0] = copy.copy(values[0])
        return spec.impl(*values, **node.attrs)


# structural opcode -> the Interpreter method that runs it ("" for inputs, set before the walk)
_METHODS = {INPUT: "", CAPTURE: "capture", CONSTANT: "constant", COND: "cond", WHILE: "while_"}


def interpret(graph: Graph, *args: Any) -> list:
    """The outputs of `graph` on `args`, 0-d ones as NumPy scalars like the compiler's."""
    values = [v if isinstance(v, (np.ndarray, np.generic)) else np.asarray(v) for v in args]
    outputs = Interpreter().run_graph(graph, values, {})
    return [
        output_value(v) if isinstance(o.type, tuple) or o.type.dtype != object else v
        for v, o in zip(outputs, graph.outputs)
    ]


def run_graph(graph: Graph, args: list, outer: dict[Node, Any]) -> list:
    """Evaluate `graph` given its input values and the enclosing graph's environment."""
    return Interpreter().run_graph(graph, args, outer)
