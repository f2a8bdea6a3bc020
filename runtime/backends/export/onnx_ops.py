"""ONNX lowerings of the array ops: arithmetic, comparisons, reductions, indexing and shapes.

Each handler turns one node into ONNX nodes that compute what NumPy does,
dtype included: a Python scalar operand becomes a constant of the dtype NumPy
2 computes in, `//` and `%` take the divisor's sign, `isnan` of integers is
all False. Ops with a one-to-one ONNX form are looked up in the tables
(`_UNARY`, `_ARITHMETIC`, `_COMPARE`, `_REDUCE`). `HANDLERS` maps op names
to their handlers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.export.onnx_emit import Converter, Handler, Scope, literal, unsupported
from runtime.ir.graph import Node
from runtime.ops.calls import Slot, Span, Weak

__all__ = ["HANDLERS"]


_UNARY = {
    "negative": "Neg", "absolute": "Abs", "sin": "Sin", "cos": "Cos", "tan": "Tan", "tanh": "Tanh",
    "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "floor": "Floor", "ceil": "Ceil", "sign": "Sign",
    "logical_not": "Not", "reciprocal": "Reciprocal", "sinh": "Sinh", "cosh": "Cosh",
    "arcsin": "Asin", "arccos": "Acos", "arctan": "Atan", "arcsinh": "Asinh", "arccosh": "Acosh",
    "arctanh": "Atanh", "copy": "Identity", "positive": "Identity", "erf": "Erf",
}
_ARITHMETIC = {
    "add": "Add", "subtract": "Sub", "multiply": "Mul", "divide": "Div", "true_divide": "Div",
    "power": "Pow", "maximum": "Max", "minimum": "Min", "matmul": "MatMul",
}
_COMPARE = {
    "equal": "Equal", "less": "Less", "less_equal": "LessOrEqual", "greater": "Greater",
    "greater_equal": "GreaterOrEqual", "not_equal": "Equal",
    "logical_and": "And", "logical_or": "Or", "logical_xor": "Xor",
}
_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
           "amax": "ReduceMax", "amin": "ReduceMin", "prod": "ReduceProd"}


def _common_dtype(operands: list) -> np.dtype:
    parts = [source if kind == "value" or source is not None else value for kind, value, source in operands]
    return np.result_type(*parts)


# -- op handlers: (converter, node, scope) -> the ONNX name of the node's value ----------------
def _unary(c: Converter, node: Node, scope: Scope) -> str:
    (operand,) = c.operands(node, scope)
    x = c.materialize(scope, operand, node.type.dtype)
    return c.emit(scope, _UNARY[node.op], [x], node.name)


def _binary(c: Converter, node: Node, scope: Scope) -> str:
    operands = c.operands(node, scope)
    if len(operands) != 2:
        raise unsupported(node, f" with {len(operands)} arguments")
    if node.op in _COMPARE:
        common = _common_dtype(operands)
        if node.op.startswith("logical_"):
            common = np.dtype(bool)
        a, b = (c.materialize(scope, o, common) for o in operands)
        out = c.emit(scope, _COMPARE[node.op], [a, b], node.name)
        return c.emit(scope, "Not", [out], node.name) if node.op == "not_equal" else out
    dtype = node.type.dtype
    if node.op in ("divide", "true_divide"):
        dtype = node.type.dtype  # NumPy divides in the result's float dtype
    a, b = (c.materialize(scope, o, dtype) for o in operands)
    if dtype == np.bool_ and node.op in ("add", "multiply", "maximum", "minimum"):
        return c.emit(scope, {"add": "Or", "maximum": "Or", "multiply": "And", "minimum": "And"}[node.op], [a, b],
                      node.name)
    return c.emit(scope, _ARITHMETIC[node.op], [a, b], node.name)


def _floor_divide(c: Converter, node: Node, scope: Scope) -> str:
    a, b = (c.materialize(scope, o, node.type.dtype) for o in c.operands(node, scope))
    return _floor_div_mod(c, scope, a, b, node.type.dtype, node.name)[0]


def _remainder(c: Converter, node: Node, scope: Scope) -> str:
    """NumPy's remainder: the sign of the divisor (Python's %)."""
    dtype = node.type.dtype
    a, b = (c.materialize(scope, o, dtype) for o in c.operands(node, scope))
    if dtype.kind in "iu":
        return c.emit(scope, "Mod", [a, b], node.name, fmod=0)
    zero = c.const(scope, 0, dtype)
    mod = c.emit(scope, "Mod", [a, b], node.name, fmod=1)
    mod_nonzero = c.emit(scope, "Not", [c.emit(scope, "Equal", [mod, zero], node.name)], node.name)
    signs_differ = c.emit(scope, "Xor", [c.emit(scope, "Less", [b, zero], node.name),
                                         c.emit(scope, "Less", [mod, zero], node.name)], node.name)
    adjust = c.emit(scope, "And", [mod_nonzero, signs_differ], node.name)
    return c.emit(scope, "Where", [adjust, c.emit(scope, "Add", [mod, b], node.name), mod], node.name)


def _floor_div_mod(c: Converter, scope: Scope, a: str, b: str, dtype: np.dtype, hint: str) -> tuple[str, str]:
    """NumPy's floor division and remainder (npy_divmod): the quotient rounded down, the
    remainder with the divisor's sign."""
    if dtype.kind in "iu":
        mod = c.emit(scope, "Mod", [a, b], hint, fmod=0)  # the divisor's sign, as Python's %
        div = c.emit(scope, "Div", [c.emit(scope, "Sub", [a, mod], hint), b], hint)  # exact
        return div, mod
    zero = c.const(scope, 0, dtype)
    one = c.const(scope, 1, dtype)
    half = c.const(scope, 0.5, dtype)
    mod = c.emit(scope, "Mod", [a, b], hint, fmod=1)
    div = c.emit(scope, "Div", [c.emit(scope, "Sub", [a, mod], hint), b], hint)
    mod_nonzero = c.emit(scope, "Not", [c.emit(scope, "Equal", [mod, zero], hint)], hint)
    signs_differ = c.emit(scope, "Xor", [c.emit(scope, "Less", [b, zero], hint),
                                         c.emit(scope, "Less", [mod, zero], hint)], hint)
    adjust = c.emit(scope, "And", [mod_nonzero, signs_differ], hint)
    mod = c.emit(scope, "Where", [adjust, c.emit(scope, "Add", [mod, b], hint), mod], hint)
    div = c.emit(scope, "Where", [adjust, c.emit(scope, "Sub", [div, one], hint), div], hint)
    floor = c.emit(scope, "Floor", [div], hint)
    rounded = c.emit(scope, "Where", [c.emit(scope, "Greater", [c.emit(scope, "Sub", [div, floor], hint), half], hint),
                                      c.emit(scope, "Add", [floor, one], hint), floor], hint)
    quotient = c.emit(scope, "Div", [a, b], hint)
    div_zero = c.emit(scope, "Equal", [div, zero], hint)
    # a zero quotient keeps the sign of a / b (copysign(0, a / b))
    signed_zero = c.emit(scope, "Mul", [zero, quotient], hint)
    floordiv = c.emit(scope, "Where", [div_zero, signed_zero, rounded], hint)
    b_zero = c.emit(scope, "Equal", [b, zero], hint)
    floordiv = c.emit(scope, "Where", [b_zero, quotient, floordiv], hint)
    return floordiv, mod


def _float_operand(c: Converter, node: Node, scope: Scope) -> tuple[str, bool]:
    """The value isinf/isnan/isfinite test, and whether it is a float (other dtypes have neither)."""
    (operand,) = c.operands(node, scope)
    kind, name, dtype = operand
    if kind != "value":
        raise unsupported(node, " of a constant")
    return name, np.dtype(dtype).kind == "f"


def _all_false(c: Converter, scope: Scope, name: str) -> str:
    shape = c.emit(scope, "Shape", [name], "shape")
    return c.emit(scope, "ConstantOfShape", [shape], "false",
                  value=c.onnx.numpy_helper.from_array(np.zeros(1, bool)))


def _isinf(c: Converter, node: Node, scope: Scope) -> str:
    name, is_float = _float_operand(c, node, scope)
    return c.emit(scope, "IsInf", [name], node.name) if is_float else _all_false(c, scope, name)


def _isnan(c: Converter, node: Node, scope: Scope) -> str:
    name, is_float = _float_operand(c, node, scope)
    return c.emit(scope, "IsNaN", [name], node.name) if is_float else _all_false(c, scope, name)


def _isfinite(c: Converter, node: Node, scope: Scope) -> str:
    name, is_float = _float_operand(c, node, scope)
    if not is_float:
        return c.emit(scope, "Not", [_all_false(c, scope, name)], node.name)
    bad = c.emit(scope, "Or", [c.emit(scope, "IsNaN", [name], node.name), c.emit(scope, "IsInf", [name], node.name)],
                 node.name)
    return c.emit(scope, "Not", [bad], node.name)


def _reduce(c: Converter, node: Node, scope: Scope) -> str:
    attrs = dict(node.attrs)
    template = attrs.pop("args", (Slot(0),))
    axis = literal(attrs.pop("axis", None))
    keepdims = bool(literal(attrs.pop("keepdims", False)))
    if attrs or len(template) != 1 or not isinstance(template[0], Slot):
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    inp = node.inputs[template[0].index]
    x = c.cast(scope, scope.env[id(inp)], inp.type.dtype, node.type.dtype)
    inputs = [x]
    if axis is not None:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        inputs.append(c.const(scope, np.array(axes, np.int64)))
    op = _REDUCE[node.op]
    return c.emit(scope, op, inputs, node.name, keepdims=int(keepdims))


def _any_all(c: Converter, node: Node, scope: Scope) -> str:
    if set(node.attrs) - {"args"} or (node.attrs.get("args", (Slot(0),)) != (Slot(0),)):
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    inp = node.inputs[0]
    x = scope.env[id(inp)]
    zero = c.const(scope, 0, inp.type.dtype)
    test = c.emit(scope, "Equal", [x, zero], node.name)
    if node.op == "any":
        test = c.emit(scope, "Not", [test], node.name)
    count = c.emit(scope, "ReduceSum", [c.emit(scope, "Cast", [test], node.name, to=c.elem(np.int64))], node.name,
                   keepdims=0)
    zero64 = c.const(scope, 0, np.int64)
    if node.op == "any":
        return c.emit(scope, "Greater", [count, zero64], node.name)
    return c.emit(scope, "Equal", [count, zero64], node.name)


def _where_op(c: Converter, node: Node, scope: Scope) -> str:
    operands = c.operands(node, scope)
    if len(operands) != 3:
        raise unsupported(node, " with other than three arguments")
    cond = c.materialize(scope, operands[0], np.dtype(bool))
    a, b = (c.materialize(scope, o, node.type.dtype) for o in operands[1:])
    return c.where(scope, cond, a, b, node.type.dtype, node.name)


def _cast_op(c: Converter, node: Node, scope: Scope) -> str:
    inp = node.inputs[0]
    name = scope.env[id(inp)]
    if np.dtype(node.type.dtype) == inp.type.dtype:
        return c.emit(scope, "Identity", [name], node.name)
    return c.emit(scope, "Cast", [name], node.name, to=c.elem(node.type.dtype))


def _fill_like(c: Converter, node: Node, scope: Scope) -> str:
    if set(node.attrs) - {"args", "dtype"} or node.attrs.get("args", (Slot(0),)) != (Slot(0),):
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    shape = c.emit(scope, "Shape", [scope.env[id(node.inputs[0])]], node.name)
    value = np.ones(1, node.type.dtype) if node.op == "ones_like" else np.zeros(1, node.type.dtype)
    return c.emit(scope, "ConstantOfShape", [shape], node.name, value=c.onnx.numpy_helper.from_array(value))


def _constant(c: Converter, node: Node, scope: Scope) -> str:
    value = node.attrs["value"]
    if isinstance(value, list):
        if value:
            raise unsupported(node, " (a TensorArray filled outside the function)")
        dtype = c.handle_dtypes.get(id(node), np.dtype(np.float64))
        return c.emit(scope, "SequenceEmpty", [], node.name, dtype=c.elem(dtype))
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise unsupported(node, f" for a {array.dtype} constant")
    return c.const(scope, array, hint=node.name)


def _index(c: Converter, node: Node, scope: Scope) -> str:
    template = node.attrs.get("args", (Slot(0), Slot(1)))
    if set(node.attrs) - {"args"} or not isinstance(template[0], Slot):
        raise unsupported(node)
    base = node.inputs[template[0].index]
    key = template[1] if isinstance(template[1], tuple) else (template[1],)
    x = scope.env[id(base)]
    rank = base.type.rank
    if rank is None or any(k is None or k is Ellipsis for k in key) or len(key) > rank:
        raise unsupported(node, f" for the index {template[1]!r}")
    squeeze = []
    for axis, item in enumerate(key):
        axis_const = c.const(scope, np.array([axis], np.int64))
        if isinstance(literal(item), (bool, np.bool_)):
            raise unsupported(node, f" for the index {template[1]!r}")
        if isinstance(item, Slot) or isinstance(item, (Weak, int, np.integer)):
            if isinstance(item, Slot):
                inp = node.inputs[item.index]
                if inp.type.rank != 0 or inp.type.dtype.kind not in "iu":
                    raise unsupported(node, " with an array index")
                start = c.emit(scope, "Cast", [scope.env[id(inp)]], "index", to=c.elem(np.int64))
            else:
                start = c.const(scope, literal(item), np.int64)
            start = c.emit(scope, "Unsqueeze", [start, c.const(scope, np.array([0], np.int64))], "index")
            x = c.emit(scope, "Gather", [x, start], node.name, axis=axis)
            squeeze.append(axis)
        elif isinstance(item, Span):
            bounds = [literal(v) for v in (item.start, item.stop, item.step)]
            if any(isinstance(v, Slot) for v in (item.start, item.stop, item.step)):
                raise unsupported(node, " with a slice of staged bounds")
            step = 1 if bounds[2] is None else bounds[2]
            big = np.iinfo(np.int64).max
            start = bounds[0] if bounds[0] is not None else (0 if step > 0 else big)
            stop = bounds[1] if bounds[1] is not None else (big if step > 0 else -big)
            x = c.emit(scope, "Slice", [x, c.const(scope, [start], np.int64), c.const(scope, [stop], np.int64),
                                        axis_const, c.const(scope, [step], np.int64)], node.name)
        else:
            raise unsupported(node, f" for the index {template[1]!r}")
    if squeeze:
        x = c.emit(scope, "Squeeze", [x, c.const(scope, np.array(squeeze, np.int64))], node.name)
    return x


def _shape_template(node: Node) -> tuple[Node, tuple]:
    """The tensor and the literal rest of a shape op's positional arguments."""
    template = node.attrs.get("args", tuple(Slot(i) for i in range(len(node.inputs))))
    if not template or not isinstance(template[0], Slot):
        raise unsupported(node, f" with the arguments {template!r}")
    rest = literal(template[1:])
    if any(isinstance(item, (Slot, Span)) for item in _flat(rest)):
        raise unsupported(node, " with staged arguments")
    return node.inputs[template[0].index], rest


def _flat(item: Any) -> list:
    return [x for i in item for x in _flat(i)] if isinstance(item, tuple) else [item]


def _transpose(c: Converter, node: Node, scope: Scope) -> str:
    base, rest = _shape_template(node)
    perm = rest[0] if rest else literal(node.attrs.get("axes"))
    if set(node.attrs) - {"args", "axes"}:
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    if perm is None:
        if base.type.rank is None:
            raise unsupported(node, " of an array of unknown rank")
        perm = tuple(reversed(range(base.type.rank)))
    rank = len(perm)
    perm = [p % rank for p in perm]
    return c.emit(scope, "Transpose", [scope.env[id(base)]], node.name, perm=perm)


def _reshape(c: Converter, node: Node, scope: Scope) -> str:
    base, rest = _shape_template(node)
    if set(node.attrs) - {"args"} or len(rest) != 1:
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    shape = rest[0] if isinstance(rest[0], tuple) else (rest[0],)
    return c.emit(scope, "Reshape", [scope.env[id(base)], c.const(scope, np.array(shape, np.int64))], node.name)


def _expand_dims(c: Converter, node: Node, scope: Scope) -> str:
    base, rest = _shape_template(node)
    axis = rest[0] if rest else literal(node.attrs.get("axis"))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return c.emit(scope, "Unsqueeze", [scope.env[id(base)], c.const(scope, np.array(axes, np.int64))], node.name)


def _join(c: Converter, node: Node, scope: Scope) -> str:
    """np.concatenate / np.stack of a tuple of tensors along a literal axis."""
    template = node.attrs.get("args")
    axis = literal(node.attrs.get("axis", 0))
    if (set(node.attrs) - {"args", "axis"} or template is None or len(template) != 1
            or not isinstance(template[0], tuple) or not isinstance(axis, int)):
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    parts = []
    for item in template[0]:
        if isinstance(item, Slot):
            inp = node.inputs[item.index]
            parts.append(c.cast(scope, scope.env[id(inp)], inp.type.dtype, node.type.dtype))
        else:
            parts.append(c.const(scope, literal(item), node.type.dtype))
    if node.op == "stack":
        axes = c.const(scope, np.array([axis], np.int64))
        parts = [c.emit(scope, "Unsqueeze", [p, axes], node.name) for p in parts]
    return c.emit(scope, "Concat", parts, node.name, axis=axis)


def _cumsum(c: Converter, node: Node, scope: Scope) -> str:
    """np.cumsum over all elements (flattened) or one literal axis, in the result's dtype."""
    attrs = dict(node.attrs)
    template = attrs.pop("args", (Slot(0),))
    axis = literal(attrs.pop("axis", None))
    if attrs or len(template) != 1 or not isinstance(template[0], Slot) or not (axis is None or isinstance(axis, int)):
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    inp = node.inputs[template[0].index]
    x = c.cast(scope, scope.env[id(inp)], inp.type.dtype, node.type.dtype)
    if axis is None:
        x = c.emit(scope, "Reshape", [x, c.const(scope, np.array([-1], np.int64))], node.name)
        axis = 0
    return c.emit(scope, "CumSum", [x, c.const(scope, np.int64(axis))], node.name)


def _shape_of(c: Converter, node: Node, scope: Scope) -> str:
    """np.shape (an int64 vector) and np.size (an int64 scalar) of a tensor."""
    if node.attrs or len(node.inputs) != 1:
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    return c.emit(scope, "Shape" if node.op == "shape" else "Size", [scope.env[id(node.inputs[0])]], node.name)


def _staged_range(c: Converter, node: Node, scope: Scope) -> str:
    dtype = node.type.dtype
    inputs = [c.cast(scope, scope.env[id(i)], i.type.dtype, dtype) for i in node.inputs]
    inputs = [c.emit(scope, "Reshape", [name, c.const(scope, np.zeros(0, np.int64))], "scalar") for name in inputs]
    return c.emit(scope, "Range", inputs, node.name)


HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(_REDUCE, _reduce),
    **dict.fromkeys([*_ARITHMETIC, *_COMPARE], _binary),
    **dict.fromkeys(_UNARY, _unary),
    "constant": _constant, "floor_divide": _floor_divide, "remainder": _remainder, "mod": _remainder,
    "isinf": _isinf, "isnan": _isnan, "isfinite": _isfinite, "any": _any_all, "all": _any_all,
    "where": _where_op, "cast": _cast_op, "ones_like": _fill_like, "zeros_like": _fill_like, "index": _index,
    "staged_range": _staged_range, "transpose": _transpose, "reshape": _reshape, "expand_dims": _expand_dims,
    "concatenate": _join, "stack": _join, "cumsum": _cumsum, "shape": _shape_of, "size": _shape_of,
}
