"""The op set: each op's shape/dtype rule, NumPy implementation and emitted code."""

from runtime.ops.registry import OPS, Op, get_op, register

__all__ = ["OPS", "Op", "get_op", "register"]
