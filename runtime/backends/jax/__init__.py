"""The XLA backend: a Graph lowered to JAX (jax.numpy and lax control flow), run with `jax.jit`.

A backend is a module with `NAME` and `compile(graph) -> Executable`; the
Executable is called with the graph's flat input leaves (NumPy arrays or
`jax.Array`s) and returns the list of flat output leaves. JAX is imported
only when a graph is compiled here, so `import autograph` never needs it.

    executable = compile(graph)       # lowered and checked now, compiled by XLA at the first call
    executable(np.float32([1, 2]))    # NumPy in, NumPy out; jax.Array in, jax.Array out
"""

from __future__ import annotations

import weakref
from typing import Any

from runtime.backends.jax.engine import INSTALL_HINT, available, is_device_array, require_jax
from runtime.ir.graph import Graph

__all__ = ["NAME", "compile", "available", "require_jax", "is_device_array", "INSTALL_HINT"]

NAME = "jax"


def compile(graph: Graph) -> Any:  # noqa: A001 - the backend protocol's name
    """The JAX executable of `graph`, built once per graph (kept while anything uses it)."""
    executable = _COMPILED.get(id(graph))
    if executable is None:
        require_jax()
        from runtime.backends.jax.executable import JaxExecutable

        executable = _COMPILED[id(graph)] = JaxExecutable(graph)
    return executable


# id(graph) -> its executable; an executable holds its graph, so a live id is never a dead graph's
_COMPILED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
