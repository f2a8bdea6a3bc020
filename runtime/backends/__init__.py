"""Backends: where a traced Graph goes to run (or to be written down).

A backend turns a finished Graph into an `Executable`: called with the
graph's input leaves in order, it returns the list of output leaves. The
NumPy backend (`backends.numpy`, Python source over NumPy) is the default and
needs nothing installed; others are found by name and imported only when
asked for, so a missing optional engine costs nothing until it is chosen.

    executable = get_backend("numpy").compile(graph)
    outputs = executable(x, y)

Backends import `runtime.ir`, `runtime.ops` and `runtime.passes`, never
tracing or operators: a graph is all they see.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from runtime.ir.errors import AutographError
from runtime.ir.graph import Graph

__all__ = ["Executable", "Backend", "get_backend", "BACKENDS", "BackendUnavailableError"]


class Executable(Protocol):
    """A graph made runnable: flat leaves in, the list of flat output leaves out."""

    backend: str  # the name of the backend that made it
    graph: Graph  # the graph it runs (our IR, as traced)

    def __call__(self, *leaves: Any) -> list: ...

    def describe(self) -> str:
        """What it runs, for a person: the generated source, the lowered program text."""


class Backend(Protocol):
    NAME: str

    def compile(self, graph: Graph) -> Executable: ...


class BackendUnavailableError(AutographError, ImportError):
    """A backend whose engine is not installed; the message says what to install."""


# name -> (module, what to install when it cannot be imported)
BACKENDS: dict[str, tuple[str, str]] = {
    "numpy": ("runtime.backends.numpy", "numpy"),
    "jax": ("runtime.backends.jax", "pip install 'autograph[jax]'"),
}


def get_backend(name: str | None = None) -> Backend:
    """The backend module called `name` (None: "numpy")."""
    name = name or "numpy"
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(sorted(BACKENDS))}")
    module, install = BACKENDS[name]
    try:
        return importlib.import_module(module)  # type: ignore[return-value]
    except ImportError as error:
        if error.name is not None and error.name.startswith("runtime"):
            raise  # our own module is broken: not a missing engine
        raise BackendUnavailableError(
            f"the {name} backend needs {error.name or 'an engine'} installed: {install}"
        ) from error
