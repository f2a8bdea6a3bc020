"""An op made by `runtime.ops.define` lowered to its jax.numpy counterpart
(`ops.counterpart`): operands in NumPy's common dtype, the result in the dtype
the graph inferred, and an op whose inputs are all known computed right away by
its NumPy `impl` (folded), so the graph computes as on the NumPy backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime.backends.jax.ops import COMMON_DTYPE_EXEMPT, counterpart
from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import _NOT_FOLDED, TensorArrayBuffer, _dtype, _is_static
from runtime.ir.graph import Node
from runtime.ir.types import TensorType
from runtime.ops.calls import resolve_call
from runtime.ops.registry import get_op

__all__ = ["OpCallLowering"]


class OpCallLowering:
    """Op calls of `Lowering` (it provides jnp, lax, check and the cache _functions)."""

    @staticmethod
    def _data_dependent(node: Node, values: list) -> bool:
        """Whether this call's output shape depends on run-time values (np.repeat: its repeats)."""
        if node.op == "repeat":
            args, kwargs = resolve_call(values, node.attrs)
            repeats = args[1] if len(args) > 1 else kwargs.get("repeats")
            return not _is_static(repeats)
        return not all(_is_static(v) for v in values)

    def _fold(self, node: Node, values: list) -> Any:
        """The op computed now by NumPy, when every input is known while lowering (else _NOT_FOLDED).

        An op that raises (an index out of bounds) is left to run, and raise, where the graph runs it.
        """
        spec = get_op(node.op)
        if spec.effectful or spec.stateful or not all(_is_static(v) for v in values):
            return _NOT_FOLDED
        try:
            with np.errstate(all="ignore"):
                return self.conform(spec.impl(*values, **node.attrs), node.type)
        except Exception:  # noqa: BLE001 - whatever NumPy raises, the graph raises when it runs
            return _NOT_FOLDED

    def _call(self, node: Node, values: list) -> Any:
        spec = get_op(node.op)
        folded = self._fold(node, values)
        if folded is not _NOT_FOLDED:
            return folded
        if node.op == "linalg_lstsq" and resolve_call(values, node.attrs)[1].get("index") == 1:
            raise staging_error_at(
                node.origin,
                "np.linalg.lstsq's residuals are empty or not, depending on the rank of `a`, which XLA "
                "cannot know before the graph runs; compute them from the solution, as "
                "np.sum((a @ x - b) ** 2, axis=0), or run this function on the NumPy backend "
                "(jit_compile=False).",
            )
        fn = self._functions.get(node.op)
        if fn is None:
            fn = counterpart(spec, self.jnp)
            if fn is None:
                raise staging_error_at(
                    node.origin,
                    f"{spec.path or node.op} has no counterpart in jax.numpy, so XLA cannot compile it; "
                    f"rewrite it with other NumPy functions, or run this function on the NumPy backend "
                    f"(jit_compile=False).",
                )
            self._functions[node.op] = fn
        args, kwargs = resolve_call(values, node.attrs)
        ufunc = spec.numpy
        if isinstance(ufunc, np.ufunc) and ufunc.nin == 2 and len(args) == 2 and node.op not in COMMON_DTYPE_EXEMPT:
            args = self._common_dtype(args)
            if node.op == "power":
                self._check_power(node, *args)
        try:
            result = fn(*args, **kwargs)
        except TypeError as error:
            if "requires ndarray or scalar arguments" not in str(error):
                raise
            # NumPy reads a tuple of numbers as an array (np.isin(x, [1, 2])); jax.numpy wants arrays
            result = fn(*[np.asarray(a) if isinstance(a, tuple) else a for a in args], **kwargs)
        return self.conform(result, node.type)

    def _check_power(self, node: Node, base: Any, exponent: Any) -> None:
        """An integer to a negative integer power raises, as NumPy does (XLA gives 0 or 1)."""
        if _dtype(exponent).kind != "i" or _dtype(base).kind not in "iu":
            return
        ok = np.all(np.asarray(exponent) >= 0) if _is_static(exponent) else self.jnp.all(exponent >= 0)

        def fail(_: Any) -> None:
            raise ValueError("Integers to negative integer powers are not allowed.")

        self.check(ok, fail, node, exponent)

    def _common_dtype(self, args: Sequence[Any]) -> tuple:
        """The operands in NumPy's common dtype (Python scalars stay weak, as NEP 50 says)."""
        tensors = [a for a in args if hasattr(a, "dtype")]
        if not tensors:
            return tuple(args)
        common = np.result_type(*[a.dtype if hasattr(a, "dtype") else a for a in args])
        return tuple(self.jnp.asarray(a, common) if hasattr(a, "dtype") and a.dtype != common else a for a in args)

    def conform(self, value: Any, type_: Any) -> Any:
        """`value` in the dtype the graph gives it (a static value stays a NumPy value)."""
        if not isinstance(type_, TensorType) or type_.dtype == object or value is None:
            return value
        if isinstance(value, TensorArrayBuffer):
            return value
        if _is_static(value):
            array = np.asarray(value)
            return array if array.dtype == type_.dtype else array.astype(type_.dtype)
        if isinstance(value, (tuple, list)):
            value = self.jnp.asarray(value)
        if value.dtype != type_.dtype:
            value = self.lax.convert_element_type(value, type_.dtype)
        return value
