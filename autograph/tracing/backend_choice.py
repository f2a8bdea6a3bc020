"""Which backend a Function's options choose: `jit_compile=True` is TensorFlow's name for XLA."""

from __future__ import annotations

__all__ = ["backend_name"]


def backend_name(jit_compile: bool, backend: str | None) -> str:
    """The backend `function`'s options choose; JAX must be importable for "jax"."""
    if backend not in (None, "numpy", "jax"):
        raise ValueError(f"backend must be 'numpy' or 'jax', not {backend!r}")
    if jit_compile and backend == "numpy":
        raise ValueError("jit_compile=True compiles with XLA (backend='jax'); it cannot be combined with backend='numpy'")
    name = "jax" if jit_compile else (backend or "numpy")
    if name == "jax":
        from runtime.backends.jax import require_jax

        require_jax()
    return name
