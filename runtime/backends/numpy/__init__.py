"""The NumPy backend: a graph becomes one generated Python function over NumPy calls.

`compile(graph)` optimises the graph (`runtime.passes`), generates readable
source (`codegen`), and compiles it once per graph (`compile`); counted loops
and row layout make loops read as a person would write them. `interpret` is
the reference interpreter the compiler is tested against.
"""

from __future__ import annotations

from runtime.backends.numpy.compiler import CompiledGraph, compile_graph, to_source
from runtime.ir.graph import Graph

__all__ = ["NAME", "compile", "to_source", "CompiledGraph"]

NAME = "numpy"


def compile(graph: Graph) -> CompiledGraph:  # noqa: A001 - every backend names its entry `compile`
    """The optimised, compiled form of `graph` (made once per graph and kept while in use)."""
    return compile_graph(graph)
