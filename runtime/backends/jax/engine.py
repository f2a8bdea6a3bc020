"""Whether JAX is here, and what a JAX value is, without importing JAX until a graph needs it."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["INSTALL_HINT", "available", "require_jax", "is_device_array"]

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
