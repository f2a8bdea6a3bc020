"""np.linalg decompositions and friends: eigh, eigvalsh, svd, qr, cholesky, lstsq, slogdet, pinv, matrix_power.

Shapes are written out (unknown sizes stay unknown, batch dims carry
through), so tracing never decomposes a full-size matrix to learn a shape;
dtypes come from NumPy on 1x1 identity matrices. A function with several
results (svd, eigh, qr, lstsq, slogdet) is one op per result, told apart by
the `index` attr and printed as `np.linalg.svd(a)[0]`: the backend computes
the call once per result it uses (common-subexpression elimination cannot
merge them: they differ in `index`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.types import Shape, TensorType
from runtime.ops.arguments import require_concrete
from runtime.ops.calls import staging_error
from runtime.ops.define import define
from runtime.ops.probing import probe
from runtime.ops.shapes import shape_of

__all__ = ["DECOMPOSITIONS", "result_count", "result_class"]


def _min(m: int | None, n: int | None) -> int | None:
    return None if m is None or n is None else min(m, n)


def _matrix(name: str, a: Any, square: bool = False) -> tuple[Shape, int | None, int | None]:
    """(batch dims, rows, cols) of a stack of matrices, or (None, None, None) for an unknown rank."""
    shape = shape_of(a)
    if shape is None:
        return None, None, None
    if len(shape) < 2:
        raise staging_error(
            f"np.linalg.{name}: {len(shape)}-dimensional array given; the array must be at least two-dimensional"
        )
    m, n = shape[-2], shape[-1]
    if square and m is not None and n is not None and m != n:
        raise staging_error(f"np.linalg.{name}: last 2 dimensions of the array must be square, got {m}x{n}")
    return tuple(shape[:-2]), m, n


def _batched(batch: Shape, *dims: int | None) -> Shape:
    return None if batch is None else batch + tuple(dims)


def _dtypes(fn: Callable, args: tuple, kwargs: dict) -> list[np.dtype]:
    """The dtype of each result of `fn` on 1x1 identities shaped like `args`."""
    result = probe(fn, args, kwargs, small=True, fill="eye")
    parts = result if isinstance(result, tuple) else (result,)
    return [np.asarray(p).dtype for p in parts]


def _eigh_shapes(a: Any, UPLO: str = "L") -> list[Shape]:
    batch, n, _ = _matrix("eigh", a, square=True)
    n = n if n is not None else _
    return [_batched(batch, n), _batched(batch, n, n)]


def _eigvalsh_shapes(a: Any, UPLO: str = "L") -> list[Shape]:
    return _eigh_shapes(a)[:1]


def _svd_shapes(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False) -> list[Shape]:
    batch, m, n = _matrix("svd", a)
    k = _min(m, n)
    if not compute_uv:
        return [_batched(batch, k)]
    if full_matrices:
        return [_batched(batch, m, m), _batched(batch, k), _batched(batch, n, n)]
    return [_batched(batch, m, k), _batched(batch, k), _batched(batch, k, n)]


def _qr_shapes(a: Any, mode: str = "reduced") -> list[Shape]:
    batch, m, n = _matrix("qr", a)
    k = _min(m, n)
    if mode == "reduced":
        return [_batched(batch, m, k), _batched(batch, k, n)]
    if mode == "complete":
        return [_batched(batch, m, m), _batched(batch, m, n)]
    if mode == "r":
        return [_batched(batch, k, n)]
    raise staging_error(f"np.linalg.qr: mode={mode!r} cannot be staged; use 'reduced', 'complete' or 'r'")


def _cholesky_shapes(a: Any, upper: bool = False) -> list[Shape]:
    batch, m, n = _matrix("cholesky", a, square=True)
    return [_batched(batch, m if m is not None else n, n if n is not None else m)]


def _lstsq_shapes(a: Any, b: Any, rcond: Any = None) -> list[Shape]:
    sa, sb = shape_of(a), shape_of(b)
    if sa is not None and len(sa) != 2:
        raise staging_error(f"np.linalg.lstsq: {len(sa)}-dimensional array given; a must be two-dimensional")
    if sb is not None and len(sb) not in (1, 2):
        raise staging_error(f"np.linalg.lstsq: b must be one- or two-dimensional, got {len(sb)} dimensions")
    m, n = (None, None) if sa is None else sa
    if sb is not None and m is not None and sb[0] is not None and sb[0] != m:
        raise staging_error(f"np.linalg.lstsq: incompatible dimensions: a has {m} rows, b has {sb[0]}")
    x = None if sb is None else (n,) + tuple(sb[1:])
    # residuals are empty when a is rank-deficient or m <= n: their length depends on the values
    return [x, (None,), (), (_min(m, n),)]


def _slogdet_shapes(a: Any) -> list[Shape]:
    batch, _, _ = _matrix("slogdet", a, square=True)
    return [batch, batch]


def _pinv_shapes(a: Any, rcond: Any = None, hermitian: bool = False, **kwargs: Any) -> list[Shape]:
    batch, m, n = _matrix("pinv", a)
    return [_batched(batch, n, m)]


def _matrix_power_shapes(a: Any, n: Any) -> list[Shape]:
    if not isinstance(n, (int, np.integer)):
        raise staging_error("np.linalg.matrix_power: the exponent n must be a Python int, not a tensor")
    batch, rows, cols = _matrix("matrix_power", a, square=True)
    return [_batched(batch, rows if rows is not None else cols, cols if cols is not None else rows)]


SHAPES: dict[str, Callable[..., list[Shape]]] = {
    "eigh": _eigh_shapes, "eigvalsh": _eigvalsh_shapes, "svd": _svd_shapes, "qr": _qr_shapes,
    "cholesky": _cholesky_shapes, "lstsq": _lstsq_shapes, "slogdet": _slogdet_shapes, "pinv": _pinv_shapes,
    "matrix_power": _matrix_power_shapes,
}
DECOMPOSITIONS = tuple(SHAPES)
_RESULT_CLASSES = {
    name: type(getattr(np.linalg, name)(np.eye(1))) for name in ("eigh", "svd", "qr", "slogdet")
}


def result_count(name: str, kwargs: dict[str, Any]) -> int | None:
    """How many results `np.linalg.<name>(**kwargs)` returns; None for a single array."""
    if name == "lstsq":
        return 4
    if name in ("eigh", "slogdet"):
        return 2
    if name == "svd":
        return 3 if kwargs.get("compute_uv", True) else None
    if name == "qr":
        return None if kwargs.get("mode", "reduced") == "r" else 2
    return None


def result_class(name: str) -> Callable[..., tuple]:
    """NumPy's named tuple for the results (SVDResult, EighResult, ...), or a plain tuple."""
    cls = _RESULT_CLASSES.get(name)
    if cls is None or not hasattr(cls, "_fields"):
        return lambda *parts: tuple(parts)
    return cls


def _rule(name: str, fn: Callable) -> Callable[..., TensorType]:
    shapes_of = SHAPES[name]

    def rule(*args: Any, index: int | None = None, **kwargs: Any) -> TensorType:
        require_concrete(fn, args, kwargs)
        shapes = shapes_of(*args, **kwargs)
        dtypes = _dtypes(fn, args, kwargs)
        k = 0 if index is None else index
        return TensorType(dtypes[k], shapes[k])

    return rule


def _impl(fn: Callable) -> Callable[..., Any]:
    def impl(*args: Any, index: int | None = None, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        return result if index is None else result[index]

    return impl


def _fmt(path: str) -> Callable[[list[str], dict[str, str]], str]:
    def fmt(args: list[str], keywords: dict[str, str]) -> str:
        index = keywords.pop("index", None)
        call = f"{path}({', '.join(args + [f'{k}={v}' for k, v in keywords.items()])})"
        return call if index is None or index == "None" else f"{call}[{index}]"

    return fmt


for _name in DECOMPOSITIONS:
    _fn = getattr(np.linalg, _name)
    define(f"linalg_{_name}", _impl(_fn), _rule(_name, _fn), fmt=_fmt(f"np.linalg.{_name}"), path=f"np.linalg.{_name}")
