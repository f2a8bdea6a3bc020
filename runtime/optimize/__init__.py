"""Graph optimisation passes; `optimize(graph)` runs them in order."""

from runtime.graph import Graph

__all__ = ["optimize"]


def optimize(graph: Graph) -> Graph:
    return graph
