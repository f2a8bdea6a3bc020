"""Building small graphs for the runtime's own tests: trace a function over typed inputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.graph import Graph
from runtime.ir.types import TensorType
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import building

__all__ = ["build", "outputs_equal"]


def build(fn: Callable[..., Any], *types: tuple, names: tuple[str, ...] | None = None) -> Graph:
    """The finished graph of `fn` over inputs of the given (dtype, shape) types."""
    graph = Graph(getattr(fn, "__name__", "f").strip("<>"))
    names = names or tuple(f"x{i}" if i else "x" for i in range(len(types)))
    args = [Tensor(graph.add_input(TensorType(*t), n), graph) for n, t in zip(names, types)]
    with building(graph):
        out = fn(*args)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        nodes = []
        for value in outs:
            if hasattr(value, "__autograph_tensor__"):
                value = value.__autograph_tensor__()
            if not isinstance(value, Tensor):
                array = np.asarray(value)
                node = graph.add_node("constant", (), {"value": array}, TensorType(array.dtype, array.shape))
                value = Tensor(node, graph)
            nodes.append(value.node)
    graph.set_outputs(nodes)
    return graph.finish()


def outputs_equal(a: list, b: list) -> bool:
    """Same values, dtypes and shapes (NaNs equal)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            return False
    return True
