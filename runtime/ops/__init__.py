"""The op set: each op's shape/dtype rule, NumPy implementation and emitted code.

Importing the package registers every op: one per NumPy ufunc and "cast"
(`elementwise`), reductions and scans, shape and joining ops, "index", and the
NumPy function table (`numpy_api.SUPPORTED_NUMPY`).
"""

from runtime.ops import (  # noqa: E402,F401  registers ops
    elementwise,
    indexing,
    numpy_api,  # noqa: E402,F401  registers ops
    reductions,
    shape_ops,
)
from runtime.ops.numpy_api import SUPPORTED_NUMPY  # noqa: E402
from runtime.ops.registry import OPS, Op, get_op, register

__all__ = ["OPS", "Op", "get_op", "register", "SUPPORTED_NUMPY"]
