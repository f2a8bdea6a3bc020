"""Products and linear algebra: dot, inner, outer, and np.linalg's norm/det/inv/solve.

Products get shape rules written out (contracted sizes must agree, unknown
sizes stay unknown), so tracing never multiplies full-size matrices just to
learn a shape; the dtype comes from NumPy on 1-element arrays. `np.linalg`
functions are probed with identity matrices (zeros would be singular).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ops.calls import staging_error
from runtime.ops.define import define
from runtime.ops.shapes import probe, probe_type, require_concrete, shape_of
from runtime.types import Shape, TensorType

__all__ = ["LINALG", "dot_shape"]

LINALG = ("norm", "det", "inv", "solve")


def _dtype(fn: Any, *args: Any) -> np.dtype:
    return np.asarray(probe(fn, args, {}, small=True)).dtype


def _agree(x: int | None, y: int | None, what: str) -> None:
    if x is not None and y is not None and x != y:
        raise staging_error(f"{what}: shapes not aligned: contracted sizes {x} and {y} differ")


def dot_shape(a: Shape, b: Shape) -> Shape:
    """np.dot: a scalar scales, otherwise a's last dim meets b's second-to-last (or only) dim."""
    if a is None or b is None:
        return None
    if not a or not b:
        return b if not a else a
    if len(b) == 1:
        _agree(a[-1], b[0], "dot")
        return a[:-1]
    _agree(a[-1], b[-2], "dot")
    return a[:-1] + b[:-2] + b[-1:]


def inner_shape(a: Shape, b: Shape) -> Shape:
    """np.inner: the last dims of both meet."""
    if a is None or b is None:
        return None
    if not a or not b:
        return b if not a else a
    _agree(a[-1], b[-1], "inner")
    return a[:-1] + b[:-1]


def outer_shape(a: Shape, b: Shape) -> Shape:
    """np.outer flattens both inputs."""
    sizes = []
    for shape in (a, b):
        if shape is None or None in shape:
            sizes.append(None)
        else:
            sizes.append(int(np.prod(shape, dtype=np.int64)))
    return tuple(sizes)


def _product_rule(fn: Any, shape_rule: Any) -> Any:
    def rule(a: Any, b: Any) -> TensorType:
        return TensorType(_dtype(fn, a, b), shape_rule(shape_of(a), shape_of(b)))

    return rule


define("dot", np.dot, _product_rule(np.dot, dot_shape))
define("inner", np.inner, _product_rule(np.inner, inner_shape))
define("outer", np.outer, _product_rule(np.outer, outer_shape))


def _linalg_rule(fn: Any) -> Any:
    def rule(*args: Any, **kwargs: Any) -> TensorType:
        require_concrete(fn, args, kwargs)
        return probe_type(fn, args, kwargs, fill="eye")

    return rule


for _name in LINALG:
    _fn = getattr(np.linalg, _name)
    define(f"linalg_{_name}", _fn, _linalg_rule(_fn), path=f"np.linalg.{_name}")
