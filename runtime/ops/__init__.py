"""The op set: one declaration per op — name, type rule, effect kind, NumPy reference, emitted code.

Importing the package registers every op; ops import only `runtime.ir`:

- `control`: cond, while, getitem (lowered structurally by each backend)
- `elementwise`: one op per NumPy ufunc (and its reduce/accumulate/outer), "cast"
- `reductions`: sum, mean, argmax, std, cumsum, ...
- `shape_ops`: reshape, transpose, concatenate, stack, where, clip, sort, ...
- `indexing`: "index" (`t[key]`)
- `updates`: "setitem" (`x[key] = v` as a functional update)
- `linalg`: dot, inner, outer, np.linalg's norm/det/inv/solve
- `decompositions`: np.linalg's eigh, svd, qr, cholesky, lstsq, slogdet, pinv, matrix_power
- `spectral`: np.fft
- `creation`: zeros/ones/full/eye with staged sizes, staged_range
- `numpy_api`: the long tail of NumPy functions
- `state`: TensorArray and Variable ops
- `random`: draws of `ag.random.Generator`, pure functions of (key, draw number)
- `effects`: print, py_function, assert

Ops are defined with `define.define` (a NumPy call and a shape rule) or
declared as `registry.Op`s; a call's literal arguments are a template of
`calls.Slot`/`Weak`/`Span` (how tracing splits a call: `runtime.tracing.record`).
"""

from runtime.ops import (  # noqa: F401  importing a module registers its ops
    control,
    creation,
    decompositions,
    effects,
    elementwise,
    indexing,
    linalg,
    numpy_api,
    random,
    reductions,
    shape_ops,
    spectral,
    state,
    updates,
)
from runtime.ops.registry import OPS, Op, get_op, register

__all__ = ["OPS", "Op", "get_op", "register"]
