"""Effects lowered as host callbacks: `ag.print` and `ag.py_function` without
results are ordered callbacks; a staged `assert` and every run-time check
(bounds, TensorArray misuse) call back on failure to raise the NumPy backend's
error, left in `CallbackFailure` for `runtime.backends.jax.executable` to re-raise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import _host, _is_static
from runtime.ir.errors import AutographError
from runtime.ir.graph import Node
from runtime.ops.registry import get_op

__all__ = ["CallbackFailure", "EffectLowering"]


class CallbackFailure:
    """Where a host callback leaves the error it raised, for the caller to raise again."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []
        self.used = False  # whether the lowered program calls back at all (then calls wait for it)



class EffectLowering:
    """The effect ops and run-time checks of `Lowering` (it provides jax, jnp, lax and failure)."""

    def _op_print(self, node: Node, values: list, state: list) -> None:
        impl, attrs = get_op("print").impl, node.attrs

        def show(*arrays: Any) -> None:
            impl(*[_host(a) for a in arrays], **attrs)

        self.jax.debug.callback(show, *values, ordered=True)

    def _op_py_function(self, node: Node, values: list, state: list) -> Any:
        attrs = node.attrs
        if attrs["Tout"]:
            raise staging_error_at(
                node.origin,
                "ag.py_function's results have a shape known only when the Python function runs, and XLA "
                "needs every shape before the graph runs; compute the results with staged NumPy "
                "operations, or run this function on the NumPy backend (jit_compile=False).",
            )
        impl = get_op("py_function").impl
        failure = self.failure
        failure.used = True

        def call(*arrays: Any) -> None:
            try:
                impl(*[_host(a) for a in arrays], **attrs)
            except BaseException as error:
                failure.errors.append(error)
                error._autograph_raised = True
                raise

        from jax.experimental import io_callback

        io_callback(call, None, *values, ordered=True)
        return None

    def _op_assert(self, node: Node, values: list, state: list) -> None:
        impl, attrs = get_op("assert").impl, node.attrs
        value = values[0]
        if np.size(value) != 1 if _is_static(value) else value.size != 1:
            impl(np.ones(np.shape(value), bool), **attrs)  # NumPy's own error: the truth value is ambiguous
        ok = value if _is_static(value) else self.jnp.all(value)

        def fail(*arrays: Any) -> None:
            impl(*[_host(a) for a in arrays], **attrs)

        self.check(ok, fail, node, *values, ordered=True)

    def check(self, ok: Any, fail: Callable[..., None], node: Node, *data: Any, ordered: bool = False) -> None:
        """Run `fail(*data)` on the host, to raise, where `ok` is false at run time."""
        if _is_static(ok) and bool(np.all(ok)):
            return
        from jax.experimental import io_callback

        failure, origin = self.failure, node.origin
        failure.used = True

        def raise_it(*arrays: Any) -> None:
            try:
                fail(*arrays)
            except BaseException as error:
                if origin is not None and not isinstance(error, AutographError):
                    error.add_note(f"while running the graph, the op created at {origin} raised:\n{origin.excerpt()}")
                failure.errors.append(error)
                error._autograph_raised = True  # raised again by the executable: JAX need not log it
                raise
            raise AssertionError("a failing check did not raise")

        def failing(*arrays: Any) -> None:
            io_callback(raise_it, None, *arrays, ordered=ordered)

        if _is_static(ok):
            failing(*data)
            return
        self.lax.cond(self.jnp.asarray(ok, bool), lambda *a: None, failing, *data)
