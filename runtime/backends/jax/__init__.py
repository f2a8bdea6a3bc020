"""The XLA backend: a Graph lowered to JAX (jax.numpy and lax control flow), run with `jax.jit`.

A backend is a module with `NAME` and `compile(graph) -> Executable`; the
Executable is called with the graph's flat input leaves (NumPy arrays or
`jax.Array`s) and returns the list of flat output leaves. JAX is imported
only when a graph is compiled here, so `import autograph` never needs it.

    executable = compile(graph)       # lowered and checked now, compiled by XLA at the first call
    executable(np.float32([1, 2]))    # NumPy in, NumPy out; jax.Array in, jax.Array out
"""

from __future__ import annotations

import sys
from typing import Any

from runtime.graph import Graph

__all__ = ["NAME", "compile", "available", "require_jax", "is_device_array"]

NAME = "jax"
INSTALL_HINT = "pip install 'autograph[jax]'"


def available() -> bool:
    """Whether JAX can be imported here."""
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def require_jax() -> Any:
    """The jax module, or an ImportError saying what to install."""
    try:
        import jax
    except ImportError as error:
        raise ImportError(
            f"jit_compile=True (backend='jax') runs the graph with JAX and XLA, which are not "
            f"installed: {INSTALL_HINT} (or pip install jax), or use the default backend "
            f"(jit_compile=False)."
        ) from error
    return jax


def is_device_array(value: Any) -> bool:
    """A `jax.Array` (checked without importing JAX: only a program that imported it has one)."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(value, getattr(jax, "Array", ()))


def compile(graph: Graph) -> Any:  # noqa: A001 - the backend protocol's name
    """The JAX executable of `graph`, built once per graph."""
    cache = graph.__dict__.setdefault("_compiled", {})
    executable = cache.get(NAME)
    if executable is None:
        require_jax()
        from runtime.backends.jax.executable import JaxExecutable

        executable = cache[NAME] = JaxExecutable(graph)
    return executable
