"""The op set: each op's shape/dtype rule, NumPy implementation and emitted code.

Importing the package registers every op:

- `elementwise`: one op per NumPy ufunc (and its reduce/accumulate/outer), "cast"
- `reductions`: sum, mean, argmax, std, cumsum, ...
- `shape_ops`: reshape, transpose, concatenate, stack, where, clip, sort, ...
- `indexing`: "index" (`Tensor.__getitem__`)
- `linalg`: dot, inner, outer, np.linalg
- `creation`: zeros/ones/full/eye with staged sizes, asarray (`CALL_OVERRIDES`)
- `numpy_api`: the NumPy function table (`SUPPORTED_NUMPY`) and the long tail

Ops are defined with `define.define`; calls are split into tensor inputs and
literal attrs by `calls.split_call`.
"""

from runtime.ops import (  # noqa: F401  importing a module registers its ops
    creation,
    elementwise,
    indexing,
    linalg,
    numpy_api,
    reductions,
    shape_ops,
)
from runtime.ops.numpy_api import SUPPORTED_NUMPY
from runtime.ops.registry import OPS, Op, get_op, register

__all__ = ["OPS", "Op", "get_op", "register", "SUPPORTED_NUMPY"]
