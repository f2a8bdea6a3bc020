"""Products and linear algebra: dot, inner, outer, einsum, tensordot, np.linalg's norm/det/inv/solve.

Products get shape rules written out (contracted sizes must agree, unknown
sizes stay unknown), so tracing never multiplies full-size matrices just to
learn a shape; the dtype comes from NumPy on 1-element arrays. `np.linalg`
functions are probed with identity matrices (zeros would be singular).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.types import Shape, TensorType
from runtime.ops.arguments import require_concrete
from runtime.ops.calls import staging_error
from runtime.ops.define import define
from runtime.ops.probing import probe, probe_type
from runtime.ops.shapes import shape_of

__all__ = ["LINALG", "dot_shape", "inner_shape", "outer_shape", "einsum_shape"]

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


def einsum_shape(subscripts: str, shapes: list[Shape]) -> Shape:
    """The output shape of `np.einsum(subscripts, ...)`: each output label's size."""
    inputs, _, output = subscripts.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise staging_error(f"einsum: {len(terms)} operands in {subscripts!r}, {len(shapes)} given")
    if not _:
        once = [c for c in sorted(set(inputs) - {","}) if inputs.count(c) == 1]
        output = "".join(once)
    sizes: dict[str, int | None] = {}
    for term, shape in zip(terms, shapes):
        if shape is None:
            return None
        if len(term) != len(shape):
            raise staging_error(f"einsum: {term!r} has {len(term)} labels for an operand of rank {len(shape)}")
        for label, size in zip(term, shape):
            if label not in sizes or sizes[label] == 1:
                sizes[label] = size
                continue
            known = sizes[label]
            if known is not None and size not in (None, 1, known):
                raise staging_error(f"einsum: label {label!r} has sizes {known} and {size}")
            if known is None and size not in (None, 1):
                sizes[label] = size  # like broadcasting: None meets n -> n
    return tuple(sizes[label] for label in output)


def _einsum_rule(subscripts: Any, *operands: Any, **kwargs: Any) -> TensorType:
    if not isinstance(subscripts, str) or "." in subscripts:
        return probe_type(np.einsum, (subscripts, *operands), kwargs)  # ellipsis or operand-list form
    dtype = np.asarray(probe(np.einsum, (subscripts, *operands), kwargs, small=True)).dtype
    return TensorType(dtype, einsum_shape(subscripts, [shape_of(o) for o in operands]))


def _tensordot_rule(a: Any, b: Any, axes: Any = 2) -> TensorType:
    sa, sb = shape_of(a), shape_of(b)
    dtype = _dtype(np.tensordot, a, b, axes)
    if sa is None or sb is None:
        return TensorType(dtype, None)
    if isinstance(axes, int):
        axes_a, axes_b = tuple(range(len(sa) - axes, len(sa))), tuple(range(axes))
    else:
        axes_a, axes_b = (tuple(x) if isinstance(x, tuple) else (x,) for x in axes)
    axes_a = tuple(i % len(sa) for i in axes_a)
    axes_b = tuple(i % len(sb) for i in axes_b)
    for i, j in zip(axes_a, axes_b, strict=True):
        _agree(sa[i], sb[j], "tensordot")
    kept = tuple(d for i, d in enumerate(sa) if i not in axes_a) + tuple(d for j, d in enumerate(sb) if j not in axes_b)
    return TensorType(dtype, kept)


define("einsum", np.einsum, _einsum_rule)
define("tensordot", np.tensordot, _tensordot_rule)


def _linalg_rule(fn: Any) -> Any:
    def rule(*args: Any, **kwargs: Any) -> TensorType:
        require_concrete(fn, args, kwargs)
        return probe_type(fn, args, kwargs, fill="eye")

    return rule


for _name in LINALG:
    _fn = getattr(np.linalg, _name)
    define(f"linalg_{_name}", _fn, _linalg_rule(_fn), path=f"np.linalg.{_name}")
