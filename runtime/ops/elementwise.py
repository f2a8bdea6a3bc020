"""Elementwise ops: one op per NumPy ufunc, plus "cast".

Every ufunc in the `numpy` namespace is an op named after it ("add",
"tanh", "logical_and", ...). Shapes broadcast; the dtype is whatever the
ufunc's own type resolution gives on empty arrays of the input dtypes (Python
scalars stay weak, NEP 50). Ufuncs with several outputs get one op per
output ("divmod_0", "divmod_1"). Binary ufuncs also get "<name>_reduce",
"<name>_accumulate" and "<name>_outer" for the ufunc methods.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.define import define
from runtime.ops.probing import elementwise_type, probe, probe_type
from runtime.ops.shapes import matmul_shape, normalize_axes, reduced, shape_of

__all__ = ["UFUNCS", "OPERATOR_FORMATS", "ufunc_op_name", "has_methods", "cast"]

OPERATOR_FORMATS = {
    "add": "{0} + {1}", "subtract": "{0} - {1}", "multiply": "{0} * {1}", "divide": "{0} / {1}",
    "floor_divide": "{0} // {1}", "remainder": "{0} % {1}", "power": "{0} ** {1}",
    "matmul": "{0} @ {1}", "equal": "{0} == {1}", "not_equal": "{0} != {1}", "less": "{0} < {1}",
    "less_equal": "{0} <= {1}", "greater": "{0} > {1}", "greater_equal": "{0} >= {1}",
    "bitwise_and": "{0} & {1}", "bitwise_or": "{0} | {1}", "bitwise_xor": "{0} ^ {1}",
    "left_shift": "{0} << {1}", "right_shift": "{0} >> {1}", "negative": "-{0}",
    "positive": "+{0}", "invert": "~{0}", "absolute": "abs({0})",
}

UFUNCS: dict[str, np.ufunc] = {
    value.__name__: value for value in vars(np).values() if isinstance(value, np.ufunc)
}


def ufunc_op_name(ufunc: np.ufunc, method: str = "__call__", output: int = 0) -> str:
    """The op that stages `ufunc.method(...)` (output `output` for multi-output ufuncs)."""
    if method != "__call__":
        return f"{ufunc.__name__}_{method}"
    return ufunc.__name__ if ufunc.nout == 1 else f"{ufunc.__name__}_{output}"


def has_methods(ufunc: np.ufunc) -> bool:
    """Whether reduce/accumulate/outer apply: binary, single-output, elementwise ufuncs."""
    return ufunc.nin == 2 and ufunc.nout == 1 and ufunc.signature is None


def _call_rule(ufunc: np.ufunc, output: int):
    def rule(*args: Any, **kwargs: Any) -> TensorType:
        if ufunc.__name__ == "matmul":
            result = probe(ufunc, args, kwargs, small=True)
            return TensorType(result.dtype, matmul_shape(args[0], args[1]))
        if ufunc.signature is not None:
            return probe_type(ufunc, args, kwargs)
        return elementwise_type(ufunc, args, kwargs, output if ufunc.nout > 1 else None)

    return rule


def _reduce_rule(ufunc: np.ufunc):
    def rule(
        a: TensorType, axis: Any = 0, dtype: Any = None, out: None = None, keepdims: bool = False, **kw: Any
    ) -> TensorType:
        value = probe(ufunc.reduce, (a,), {"axis": axis, "dtype": dtype, "keepdims": keepdims, **kw}, small=True)
        return TensorType(np.asarray(value).dtype, reduced(a.shape, axis, keepdims))

    return rule


def _accumulate_rule(ufunc: np.ufunc):
    def rule(a: TensorType, axis: int = 0, dtype: Any = None, **kw: Any) -> TensorType:
        value = probe(ufunc.accumulate, (a,), {"axis": axis, "dtype": dtype, **kw}, small=True)
        if a.shape is not None:
            normalize_axes(axis, len(a.shape))
        return TensorType(np.asarray(value).dtype, a.shape)

    return rule


def _outer_rule(ufunc: np.ufunc):
    def rule(a: Any, b: Any, **kw: Any) -> TensorType:
        value = elementwise_type(ufunc.outer, (a, b), kw)
        sa, sb = shape_of(a), shape_of(b)
        return TensorType(value.dtype, None if sa is None or sb is None else tuple(sa) + tuple(sb))

    return rule


def _multi_output_fmt(name: str, output: int):
    def fmt(args: list[str], keywords: dict[str, str]) -> str:
        parts = args + [f"{k}={v}" for k, v in keywords.items()]
        return f"np.{name}({', '.join(parts)})[{output}]"

    return fmt


def _register_ufunc(ufunc: np.ufunc) -> None:
    name = ufunc.__name__
    if ufunc.nout == 1:
        define(name, ufunc, _call_rule(ufunc, 0), OPERATOR_FORMATS.get(name))
    else:
        for k in range(ufunc.nout):
            fn = lambda *a, _u=ufunc, _k=k, **kw: _u(*a, **kw)[_k]  # noqa: E731
            define(ufunc_op_name(ufunc, output=k), fn, _call_rule(ufunc, k), _multi_output_fmt(name, k))
    if has_methods(ufunc):
        define(f"{name}_reduce", ufunc.reduce, _reduce_rule(ufunc), path=f"np.{name}.reduce")
        define(f"{name}_accumulate", ufunc.accumulate, _accumulate_rule(ufunc), path=f"np.{name}.accumulate")
        define(f"{name}_outer", ufunc.outer, _outer_rule(ufunc), path=f"np.{name}.outer")


for _ufunc in UFUNCS.values():
    _register_ufunc(_ufunc)


def _cast(a: Any, dtype: Any) -> Any:
    return np.asarray(a).astype(dtype)


def _cast_rule(a: TensorType, dtype: Any) -> TensorType:
    return TensorType(np.dtype(dtype), a.shape)


cast = define("cast", _cast, _cast_rule, fmt=lambda args, kw: f"{args[0]}.astype({kw['dtype']})")
