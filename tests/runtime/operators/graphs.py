"""Tracing hand-written converted-style code into a graph, and running it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.backends.numpy.compiler import compile_graph
from runtime.ir.graph import Graph
from runtime.ir.types import TensorType
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import building

__all__ = ["SCALAR_F", "SCALAR_I", "Traced", "trace", "node_count", "line_of", "state_of"]

# (dtype, shape) of a scalar input, as trace takes it
SCALAR_I = (np.int64, ())
SCALAR_F = (np.float64, ())


class Traced:
    """A traced function: its graph and a callable returning NumPy values."""

    def __init__(self, graph: Graph, tree_single: bool) -> None:
        self.graph = graph
        self.single = tree_single
        self._fn = compile_graph(graph)

    def __call__(self, *args: Any) -> Any:
        outs = self._fn(*[np.asarray(a) if not isinstance(a, np.generic) else a for a in args])
        return outs[0] if self.single else tuple(outs)

    @property
    def node_count(self) -> int:
        return node_count(self.graph)


def node_count(graph: Graph) -> int:
    return len(graph.as_graph_def().node)


def trace(fn: Callable[..., Any], *types: tuple) -> Traced:
    """Trace `fn` over inputs of the given (dtype, shape) types."""
    graph = Graph(getattr(fn, "__name__", "f"))
    args = [Tensor(graph.add_input(TensorType(*t), f"a{i}"), graph) for i, t in enumerate(types)]
    with building(graph):
        out = fn(*args)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        nodes = []
        for value in outs:
            if not isinstance(value, Tensor):
                value = Tensor(graph.add_node("constant", (), {"value": np.asarray(value)},
                                              TensorType(np.asarray(value).dtype, np.shape(value))), graph)
            nodes.append(value.node)
    graph.set_outputs(nodes)
    graph.finish()
    return Traced(graph, single)


def line_of(path: str, marker: str) -> str:
    """`path:line` of the line holding `marker` (a comment in a test file)."""
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if marker in text and "line_of(" not in text:
                return f"{path}:{number}"
    raise AssertionError(f"{marker!r} not found in {path}")


def state_of(names, scope):
    """get_state/set_state over a dict standing for the converted function's locals."""
    def get_state():
        return tuple(scope[n] for n in names)

    def set_state(values):
        scope.update(zip(names, values))

    return get_state, set_state
