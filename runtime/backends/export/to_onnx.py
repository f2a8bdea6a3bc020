"""A Graph as an ONNX model: staged if -> If, staged while/for -> Loop.

`graph_to_onnx(graph, input_names, output_names)` walks the (optimised)
graph and emits ONNX nodes for the ops that have an ONNX form; any other op
is an `UnsupportedOpError` naming the op and the user's line. Notes:

- Values keep NumPy's dtypes: a Python scalar operand (`x + 1`) becomes a
  constant of the dtype NumPy 2 computes in, so `int32 + 1` stays int32.
- A `cond` becomes an `If` whose branches read outer values by name, or, when
  both branches are a few ops that cannot fail and give results of the same
  fixed shape, both branches and a `Where` per result (an If inside a loop
  body costs onnxruntime a subgraph call per iteration); a
  `while` becomes a `Loop`. A counted loop (`for i in ag.range(n)`: the whole
  test is `i < n` for a loop-invariant `n` and the body adds 1 to `i`) gets
  the trip count `max(n - start, 0)` and no test; any other loop's test is
  evaluated before the loop and at the end of each iteration (with
  `maximum_iterations` as the trip count).
- TensorArrays become ONNX sequences (SequenceInsert/SequenceAt/
  ConcatFromSequence). One with a size starts as that many zero elements (its
  element shape must be known), so reading or stacking an element never
  written, an error in Python, gives zeros in ONNX.
- Variables are initializers named after the Variable (and inputs defaulting
  to them, so a caller may feed the state in); every Variable a graph assigns
  is threaded through If and Loop as a value and its final value is an extra
  output named `<name>:new` (the model itself keeps no state).

Effects (print, assert, py_function) have no ONNX form and are errors.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import AutographError
from runtime.ir.graph import Graph, Node
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Span, Weak

__all__ = ["UnsupportedOpError", "graph_to_onnx", "OPSET"]

OPSET = 18


class UnsupportedOpError(AutographError, ValueError):
    """An op of the graph has no ONNX form (or not with these arguments)."""


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise ImportError(
            "exporting to ONNX needs the onnx package: pip install 'autograph[onnx]'"
        ) from None
    return onnx


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


def _where(node: Node) -> str:
    return f"{node.origin}: " if node.origin is not None else ""


def unsupported(node: Node, why: str = "") -> UnsupportedOpError:
    text = node.origin.excerpt() if node.origin is not None and node.origin.text else ""
    return UnsupportedOpError(
        f"{_where(node)}the op {node.op!r} has no ONNX form{why}; it cannot be exported to ONNX. "
        f"Rewrite this line with operations that export (docs/saving.md lists them), or save the "
        f"function with ag.saved_model instead.\n{text}".rstrip()
    )


def _literal(item: Any) -> Any:
    if isinstance(item, Weak):
        return item.value
    if isinstance(item, np.generic):
        return item.item()
    if isinstance(item, tuple):
        return tuple(_literal(i) for i in item)
    return item


class _Scope:
    """The ONNX nodes of one (sub)graph being emitted, with the names of values and Variable states."""

    def __init__(self, env: dict[int, str], variables: dict[int, str]) -> None:
        self.nodes: list = []
        self.env = env  # id(Node) -> ONNX value name
        self.variables = variables  # id(Variable) -> the name holding its current value


class _Converter:
    def __init__(self, opset: int) -> None:
        self.onnx = _onnx()
        self.helper = self.onnx.helper
        self.opset = opset
        self._names = itertools.count()
        self.initializers: list = []
        self.variable_objects: dict[int, Any] = {}
        self.variable_names: dict[int, str] = {}
        self._constants: dict[tuple, str] = {}  # (dtype, shape, bytes) -> its initializer's name
        self.handle_dtypes: dict[int, np.dtype] = {}
        self.handle_shapes: dict[int, tuple] = {}

    # -- helpers -----------------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        return f"{hint}__{next(self._names)}"

    def emit(self, scope: _Scope, op: str, inputs: Sequence[str], hint: str, outputs: int = 1, **attrs: Any):
        names = [self.fresh(hint) for _ in range(outputs)]
        scope.nodes.append(self.helper.make_node(op, list(inputs), names, **attrs))
        return names[0] if outputs == 1 else names

    def const(self, scope: _Scope, value: Any, dtype: Any = None, hint: str = "const") -> str:
        """A constant, as an initializer of the whole model: a loop body reads it, never rebuilds it."""
        array = np.asarray(value, dtype=dtype)
        key = (array.dtype.str, array.shape, array.tobytes())
        name = self._constants.get(key)
        if name is None:
            name = self._constants[key] = self.fresh(hint)
            self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
        return name

    def scalar_bool(self, scope: _Scope, name: str, type_: TensorType, hint: str) -> str:
        """A test's value as the bool scalar If and Loop take (cast and reshaped only if needed)."""
        name = self.cast(scope, name, type_.dtype, np.dtype(bool))
        if type_.shape != ():
            name = self.emit(scope, "Reshape", [name, self.const(scope, np.zeros(0, np.int64))], hint)
        return name

    def output(self, scope: _Scope, name: str, used: set[str], hint: str) -> str:
        """`name` as an output of the subgraph `scope` builds: itself when a node there computes
        it (and no other output is it), else an Identity of it."""
        produced = {out for node in scope.nodes for out in node.output}
        if name in produced and name not in used:
            used.add(name)
            return name
        name = self.emit(scope, "Identity", [name], hint)
        used.add(name)
        return name

    def where(self, scope: _Scope, cond: str, a: str, b: str, dtype: np.dtype, hint: str) -> str:
        """Where(cond, a, b) for values of `dtype`: onnxruntime has no Where of bools (written
        with And/Or) or of 16-bit and unsigned 32-bit ints (computed wider, cast back)."""
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            taken = self.emit(scope, "And", [cond, a], hint)
            other = self.emit(scope, "And", [self.emit(scope, "Not", [cond], hint), b], hint)
            return self.emit(scope, "Or", [taken, other], hint)
        wider = {np.dtype(np.int16): np.int32, np.dtype(np.uint16): np.int32, np.dtype(np.uint32): np.int64,
                 np.dtype(np.float16): np.float32}.get(dtype)
        if wider is None:
            return self.emit(scope, "Where", [cond, a, b], hint)
        a, b = self.cast(scope, a, dtype, np.dtype(wider)), self.cast(scope, b, dtype, np.dtype(wider))
        return self.cast(scope, self.emit(scope, "Where", [cond, a, b], hint), np.dtype(wider), dtype)

    def elem(self, dtype: np.dtype) -> int:
        return self.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def cast(self, scope: _Scope, name: str, source: np.dtype, target: np.dtype) -> str:
        if np.dtype(source) == np.dtype(target):
            return name
        return self.emit(scope, "Cast", [name], "cast", to=self.elem(target))

    def value_info(self, name: str, type_: TensorType, handle: np.dtype | None = None, shape: bool = True):
        if handle is not None:
            return self.helper.make_tensor_sequence_value_info(name, self.elem(handle), None)
        dims = None
        if shape and type_.shape is not None:
            dims = [d if d is not None else f"{name}_d{i}" for i, d in enumerate(type_.shape)]
        return self.helper.make_tensor_value_info(name, self.elem(type_.dtype), dims)

    # -- graphs ------------------------------------------------------------------------------
    def body(self, graph: Graph, scope: _Scope) -> None:
        for node in graph.nodes:
            if node.op == "input":
                if id(node) not in scope.env:
                    raise AssertionError(f"input {node.name} of {graph.name} has no value")
                continue
            if node.op == "capture":
                scope.env[id(node)] = scope.env[id(node.attrs["outer"])]
                continue
            if node.op == "getitem" and node.inputs[0].op in ("cond", "while"):
                scope.env[id(node)] = scope.env[(id(node.inputs[0]), node.attrs["index"])]
                continue
            handler = _HANDLERS.get(node.op)
            if handler is None:
                if node.op in _UNARY:
                    handler = _unary
                elif node.op in _ARITHMETIC or node.op in _COMPARE:
                    handler = _binary
                elif node.op in _REDUCE:
                    handler = _reduce
                else:
                    raise unsupported(node)
            result = handler(self, node, scope)
            if result is not None:
                scope.env[id(node)] = result

    def operands(self, node: Node, scope: _Scope) -> list[Any]:
        """The op's positional operands: ONNX names for inputs, Python/NumPy literals as they are."""
        extra = set(node.attrs) - {"args"}
        if extra:
            raise unsupported(node, f" with the arguments {sorted(extra)}")
        template = node.attrs.get("args")
        if template is None:
            return [("value", scope.env[id(i)], i.type.dtype) for i in node.inputs]
        out = []
        for item in template:
            if isinstance(item, Slot):
                inp = node.inputs[item.index]
                out.append(("value", scope.env[id(inp)], inp.type.dtype))
            elif isinstance(item, (Weak, np.generic)) or type(item) in (bool, int, float):
                out.append(("literal", _literal(item), item.dtype if isinstance(item, np.generic) else None))
            else:
                raise unsupported(node, f" with the argument {item!r}")
        return out

    def materialize(self, scope: _Scope, operand: tuple, dtype: np.dtype) -> str:
        kind, value, source = operand
        if kind == "value":
            return self.cast(scope, value, source, dtype)
        return self.const(scope, value, dtype)


def _common_dtype(operands: list) -> np.dtype:
    parts = [source if kind == "value" or source is not None else value for kind, value, source in operands]
    return np.result_type(*parts)


# -- op handlers: (converter, node, scope) -> the ONNX name of the node's value ----------------
def _unary(c: _Converter, node: Node, scope: _Scope) -> str:
    (operand,) = c.operands(node, scope)
    x = c.materialize(scope, operand, node.type.dtype)
    return c.emit(scope, _UNARY[node.op], [x], node.name)


def _binary(c: _Converter, node: Node, scope: _Scope) -> str:
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


def _floor_divide(c: _Converter, node: Node, scope: _Scope) -> str:
    a, b = (c.materialize(scope, o, node.type.dtype) for o in c.operands(node, scope))
    return _floor_div_mod(c, scope, a, b, node.type.dtype, node.name)[0]


def _remainder(c: _Converter, node: Node, scope: _Scope) -> str:
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


def _floor_div_mod(c: _Converter, scope: _Scope, a: str, b: str, dtype: np.dtype, hint: str) -> tuple[str, str]:
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


def _isinf(c: _Converter, node: Node, scope: _Scope) -> str:
    (operand,) = c.operands(node, scope)
    kind, name, dtype = operand
    if kind != "value":
        raise unsupported(node, " of a constant")
    if np.dtype(dtype).kind != "f":
        return _all_false(c, scope, name)
    return c.emit(scope, "IsInf", [name], node.name)


def _all_false(c: _Converter, scope: _Scope, name: str) -> str:
    shape = c.emit(scope, "Shape", [name], "shape")
    return c.emit(scope, "ConstantOfShape", [shape], "false",
                  value=c.onnx.numpy_helper.from_array(np.zeros(1, bool)))


def _isnan(c: _Converter, node: Node, scope: _Scope) -> str:
    (operand,) = c.operands(node, scope)
    kind, name, dtype = operand
    if kind != "value":
        raise unsupported(node, " of a constant")
    if np.dtype(dtype).kind != "f":
        return _all_false(c, scope, name)
    return c.emit(scope, "IsNaN", [name], node.name)


def _isfinite(c: _Converter, node: Node, scope: _Scope) -> str:
    (operand,) = c.operands(node, scope)
    kind, name, dtype = operand
    if kind != "value":
        raise unsupported(node, " of a constant")
    if np.dtype(dtype).kind != "f":
        return c.emit(scope, "Not", [_all_false(c, scope, name)], node.name)
    bad = c.emit(scope, "Or", [c.emit(scope, "IsNaN", [name], node.name), c.emit(scope, "IsInf", [name], node.name)],
                 node.name)
    return c.emit(scope, "Not", [bad], node.name)


def _reduce(c: _Converter, node: Node, scope: _Scope) -> str:
    attrs = dict(node.attrs)
    template = attrs.pop("args", (Slot(0),))
    axis = _literal(attrs.pop("axis", None))
    keepdims = bool(_literal(attrs.pop("keepdims", False)))
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


def _any_all(c: _Converter, node: Node, scope: _Scope) -> str:
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


def _where_op(c: _Converter, node: Node, scope: _Scope) -> str:
    operands = c.operands(node, scope)
    if len(operands) != 3:
        raise unsupported(node, " with other than three arguments")
    cond = c.materialize(scope, operands[0], np.dtype(bool))
    a, b = (c.materialize(scope, o, node.type.dtype) for o in operands[1:])
    return c.where(scope, cond, a, b, node.type.dtype, node.name)


def _cast_op(c: _Converter, node: Node, scope: _Scope) -> str:
    inp = node.inputs[0]
    name = scope.env[id(inp)]
    if np.dtype(node.type.dtype) == inp.type.dtype:
        return c.emit(scope, "Identity", [name], node.name)
    return c.emit(scope, "Cast", [name], node.name, to=c.elem(node.type.dtype))


def _fill_like(c: _Converter, node: Node, scope: _Scope) -> str:
    if set(node.attrs) - {"args", "dtype"} or node.attrs.get("args", (Slot(0),)) != (Slot(0),):
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    shape = c.emit(scope, "Shape", [scope.env[id(node.inputs[0])]], node.name)
    value = np.ones(1, node.type.dtype) if node.op == "ones_like" else np.zeros(1, node.type.dtype)
    return c.emit(scope, "ConstantOfShape", [shape], node.name, value=c.onnx.numpy_helper.from_array(value))


def _constant(c: _Converter, node: Node, scope: _Scope) -> str:
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


def _index(c: _Converter, node: Node, scope: _Scope) -> str:
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
        if isinstance(_literal(item), (bool, np.bool_)):
            raise unsupported(node, f" for the index {template[1]!r}")
        if isinstance(item, Slot) or isinstance(item, (Weak, int, np.integer)):
            if isinstance(item, Slot):
                inp = node.inputs[item.index]
                if inp.type.rank != 0 or inp.type.dtype.kind not in "iu":
                    raise unsupported(node, " with an array index")
                start = c.emit(scope, "Cast", [scope.env[id(inp)]], "index", to=c.elem(np.int64))
            else:
                start = c.const(scope, _literal(item), np.int64)
            start = c.emit(scope, "Unsqueeze", [start, c.const(scope, np.array([0], np.int64))], "index")
            x = c.emit(scope, "Gather", [x, start], node.name, axis=axis)
            squeeze.append(axis)
        elif isinstance(item, Span):
            bounds = [_literal(v) for v in (item.start, item.stop, item.step)]
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
    rest = _literal(template[1:])
    if any(isinstance(item, (Slot, Span)) for item in _flat(rest)):
        raise unsupported(node, " with staged arguments")
    return node.inputs[template[0].index], rest


def _flat(item: Any) -> list:
    return [x for i in item for x in _flat(i)] if isinstance(item, tuple) else [item]


def _transpose(c: _Converter, node: Node, scope: _Scope) -> str:
    base, rest = _shape_template(node)
    perm = rest[0] if rest else _literal(node.attrs.get("axes"))
    if set(node.attrs) - {"args", "axes"}:
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    if perm is None:
        if base.type.rank is None:
            raise unsupported(node, " of an array of unknown rank")
        perm = tuple(reversed(range(base.type.rank)))
    rank = len(perm)
    perm = [p % rank for p in perm]
    return c.emit(scope, "Transpose", [scope.env[id(base)]], node.name, perm=perm)


def _reshape(c: _Converter, node: Node, scope: _Scope) -> str:
    base, rest = _shape_template(node)
    if set(node.attrs) - {"args"} or len(rest) != 1:
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    shape = rest[0] if isinstance(rest[0], tuple) else (rest[0],)
    return c.emit(scope, "Reshape", [scope.env[id(base)], c.const(scope, np.array(shape, np.int64))], node.name)


def _expand_dims(c: _Converter, node: Node, scope: _Scope) -> str:
    base, rest = _shape_template(node)
    axis = rest[0] if rest else _literal(node.attrs.get("axis"))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return c.emit(scope, "Unsqueeze", [scope.env[id(base)], c.const(scope, np.array(axes, np.int64))], node.name)


def _join(c: _Converter, node: Node, scope: _Scope) -> str:
    """np.concatenate / np.stack of a tuple of tensors along a literal axis."""
    template = node.attrs.get("args")
    axis = _literal(node.attrs.get("axis", 0))
    if (set(node.attrs) - {"args", "axis"} or template is None or len(template) != 1
            or not isinstance(template[0], tuple) or not isinstance(axis, int)):
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    parts = []
    for item in template[0]:
        if isinstance(item, Slot):
            inp = node.inputs[item.index]
            parts.append(c.cast(scope, scope.env[id(inp)], inp.type.dtype, node.type.dtype))
        else:
            parts.append(c.const(scope, _literal(item), node.type.dtype))
    if node.op == "stack":
        axes = c.const(scope, np.array([axis], np.int64))
        parts = [c.emit(scope, "Unsqueeze", [p, axes], node.name) for p in parts]
    return c.emit(scope, "Concat", parts, node.name, axis=axis)


def _cumsum(c: _Converter, node: Node, scope: _Scope) -> str:
    """np.cumsum over all elements (flattened) or one literal axis, in the result's dtype."""
    attrs = dict(node.attrs)
    template = attrs.pop("args", (Slot(0),))
    axis = _literal(attrs.pop("axis", None))
    if attrs or len(template) != 1 or not isinstance(template[0], Slot) or not (axis is None or isinstance(axis, int)):
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    inp = node.inputs[template[0].index]
    x = c.cast(scope, scope.env[id(inp)], inp.type.dtype, node.type.dtype)
    if axis is None:
        x = c.emit(scope, "Reshape", [x, c.const(scope, np.array([-1], np.int64))], node.name)
        axis = 0
    return c.emit(scope, "CumSum", [x, c.const(scope, np.int64(axis))], node.name)


def _shape_of(c: _Converter, node: Node, scope: _Scope) -> str:
    """np.shape (an int64 vector) and np.size (an int64 scalar) of a tensor."""
    if node.attrs or len(node.inputs) != 1:
        raise unsupported(node, f" with the arguments {sorted(node.attrs)}")
    return c.emit(scope, "Shape" if node.op == "shape" else "Size", [scope.env[id(node.inputs[0])]], node.name)


def _staged_range(c: _Converter, node: Node, scope: _Scope) -> str:
    dtype = node.type.dtype
    inputs = [c.cast(scope, scope.env[id(i)], i.type.dtype, dtype) for i in node.inputs]
    inputs = [c.emit(scope, "Reshape", [name, c.const(scope, np.zeros(0, np.int64))], "scalar") for name in inputs]
    return c.emit(scope, "Range", inputs, node.name)


# -- Variables ----------------------------------------------------------------------------------
def _variable(c: _Converter, node: Node) -> Any:
    variable = node.attrs["ref"]()
    if variable is None or getattr(variable, "_value", None) is None:
        raise unsupported(node, " for a Variable without a value (run the function once before exporting)")
    key = id(variable)
    if key not in c.variable_objects:
        c.variable_objects[key] = variable
        name = _unique(str(variable.name), set(c.variable_names.values()))
        c.variable_names[key] = name
        c.initializers.append(c.onnx.numpy_helper.from_array(np.asarray(variable._value), name))
    return variable


def _unique(name: str, used: set[str]) -> str:
    candidate, number = name, 1
    while candidate in used:
        number += 1
        candidate = f"{name}_{number}"
    return candidate


def _read_variable(c: _Converter, node: Node, scope: _Scope) -> str:
    variable = _variable(c, node)
    current = scope.variables.get(id(variable), c.variable_names[id(variable)])
    return c.emit(scope, "Identity", [current], node.name)


def _assign_variable(c: _Converter, node: Node, scope: _Scope) -> None:
    variable = _variable(c, node)
    current = scope.variables.get(id(variable), c.variable_names[id(variable)])
    inp = node.inputs[0]
    mode = node.attrs["mode"]
    if mode in ("add", "sub"):  # as Variable._store: current + value in NumPy's dtype, then stored
        common = np.result_type(variable.dtype, inp.type.dtype)
        value = c.emit(scope, "Add" if mode == "add" else "Sub",
                       [c.cast(scope, current, variable.dtype, common), c.cast(scope, scope.env[id(inp)],
                                                                               inp.type.dtype, common)], node.name)
        value = c.cast(scope, value, common, variable.dtype)
    else:
        value = c.cast(scope, scope.env[id(inp)], inp.type.dtype, variable.dtype)
    if inp.type.shape != variable.shape:
        value = c.emit(scope, "Expand", [value, c.const(scope, np.array(variable.shape, np.int64))], node.name)
    scope.variables[id(variable)] = c.emit(scope, "Identity", [value], f"{c.variable_names[id(variable)]}_value")
    return None


def _assigned(graph: Graph) -> list[Any]:
    """The Variables `graph` and its subgraphs assign, each once."""
    found: dict[int, Any] = {}
    for node in graph.nodes:
        if node.op == "assign_variable":
            variable = node.attrs["ref"]()
            if variable is not None:
                found.setdefault(id(variable), variable)
        for value in node.attrs.values():
            if isinstance(value, Graph):
                for variable in _assigned(value):
                    found.setdefault(id(variable), variable)
    return list(found.values())


# -- TensorArrays -------------------------------------------------------------------------------
def _ta_new(c: _Converter, node: Node, scope: _Scope) -> str:
    """An empty sequence; with a size, that many zero elements (element shape known) to overwrite."""
    dtype = c.handle_dtypes.get(id(node), np.dtype(np.float64))
    size = node.inputs[0] if node.inputs else None
    if size is None or (size.op == "constant" and int(np.asarray(size.attrs["value"])) == 0):
        return c.emit(scope, "SequenceEmpty", [], node.name, dtype=c.elem(dtype))
    shape = c.handle_shapes.get(id(node))
    if shape is None or None in shape:
        raise unsupported(node, " for a TensorArray with a size whose element shape is not known (give it "
                                "element_shape=..., or create it with size=0, dynamic_size=True)")
    count = c.emit(scope, "Reshape", [c.cast(scope, scope.env[id(size)], size.type.dtype, np.dtype(np.int64)),
                                      c.const(scope, np.array([1], np.int64))], "size")
    dims = c.emit(scope, "Concat", [count, c.const(scope, np.array(shape, np.int64))], "dims", axis=0)
    zeros = c.emit(scope, "ConstantOfShape", [dims], "zeros", value=c.onnx.numpy_helper.from_array(np.zeros(1, dtype)))
    return c.emit(scope, "SplitToSequence", [zeros], node.name, axis=0, keepdims=0)


def _ta_write(c: _Converter, node: Node, scope: _Scope) -> str:
    handle, index, value = node.inputs
    seq = scope.env[id(handle)]
    position = c.emit(scope, "Cast", [scope.env[id(index)]], "index", to=c.elem(np.int64))
    element = c.cast(scope, scope.env[id(value)], value.type.dtype, node.attrs["dtype"])
    if not node.attrs.get("dynamic"):  # a fixed size: every write replaces (out of bounds fails, as in Python)
        erased = c.emit(scope, "SequenceErase", [seq, position], "erased")
        return c.emit(scope, "SequenceInsert", [erased, element, position], node.name)
    length = c.emit(scope, "SequenceLength", [seq], "length")
    inside = c.emit(scope, "Less", [position, length], "inside")
    dtype = node.attrs["dtype"]
    then_scope = _Scope(scope.env, scope.variables)
    erased = c.emit(then_scope, "SequenceErase", [seq, position], "erased")
    replaced = c.emit(then_scope, "SequenceInsert", [erased, element, position], "replaced")
    else_scope = _Scope(scope.env, scope.variables)
    appended = c.emit(else_scope, "SequenceInsert", [seq, element, position], "appended")
    out = c.fresh(node.name)
    then_graph = c.helper.make_graph(then_scope.nodes, c.fresh("overwrite"), [],
                                     [c.value_info(replaced, None, dtype)])
    else_graph = c.helper.make_graph(else_scope.nodes, c.fresh("append"), [],
                                     [c.value_info(appended, None, dtype)])
    scope.nodes.append(c.helper.make_node("If", [inside], [out], then_branch=then_graph, else_branch=else_graph))
    return out


def _ta_read(c: _Converter, node: Node, scope: _Scope) -> str:
    handle, index = node.inputs[:2]
    return c.emit(scope, "SequenceAt", [scope.env[id(handle)], scope.env[id(index)]], node.name)


def _ta_size(c: _Converter, node: Node, scope: _Scope) -> str:
    return c.emit(scope, "SequenceLength", [scope.env[id(node.inputs[0])]], node.name)


def _ta_unstack(c: _Converter, node: Node, scope: _Scope) -> str:
    value = node.inputs[-1]
    name = c.cast(scope, scope.env[id(value)], value.type.dtype, node.attrs.get("dtype", value.type.dtype))
    return c.emit(scope, "SplitToSequence", [name], node.name, axis=0, keepdims=0)


def _ta_stack(c: _Converter, node: Node, scope: _Scope) -> str:
    seq = scope.env[id(node.inputs[0])]
    dtype = node.attrs["dtype"]
    element_shape = node.attrs.get("element_shape")
    stacked_scope = _Scope(scope.env, scope.variables)
    stacked = c.emit(stacked_scope, "ConcatFromSequence", [seq], node.name, axis=0, new_axis=1)
    if element_shape is None or None in element_shape:
        scope.nodes.extend(stacked_scope.nodes)
        return stacked
    empty_scope = _Scope(scope.env, scope.variables)
    empty = c.emit(empty_scope, "Identity", [c.const(empty_scope, np.zeros((0, *element_shape), dtype))], "empty")
    length = c.emit(scope, "SequenceLength", [seq], "length")
    is_empty = c.emit(scope, "Equal", [length, c.const(scope, 0, np.int64)], "empty")
    out = c.fresh(node.name)
    info = TensorType(dtype, None)
    then_graph = c.helper.make_graph(empty_scope.nodes, c.fresh("empty"), [], [c.value_info(empty, info)])
    else_graph = c.helper.make_graph(stacked_scope.nodes, c.fresh("stack"), [], [c.value_info(stacked, info)])
    scope.nodes.append(c.helper.make_node("If", [is_empty], [out], then_branch=then_graph, else_branch=else_graph))
    return out


def _handle_dtypes(graph: Graph) -> tuple[dict[int, np.dtype], dict[int, tuple]]:
    """The element dtype of every TensorArray handle node (handles carried through loops and
    conds share their array's dtype)."""
    parent: dict[int, int] = {}

    def find(key: int) -> int:
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    def union(a: Node, b: Node) -> None:
        ra, rb = find(id(a)), find(id(b))
        if ra != rb:
            parent[ra] = rb

    dtypes: dict[int, np.dtype] = {}
    shapes: dict[int, tuple] = {}

    def walk(g: Graph) -> None:
        getitems: dict[int, list[Node]] = {}
        for node in g.nodes:
            if node.op == "getitem":
                getitems.setdefault(id(node.inputs[0]), []).append(node)
        for node in g.nodes:
            if node.op == "ta_write":
                union(node, node.inputs[0])
                dtypes[id(node)] = np.dtype(node.attrs["dtype"])
                if node.inputs[2].type.shape is not None:
                    shapes[id(node)] = node.inputs[2].type.shape
            elif node.op in ("ta_stack", "ta_read", "ta_size") and node.inputs:
                if node.op == "ta_stack":
                    dtypes[id(node.inputs[0])] = np.dtype(node.attrs["dtype"])
                    if node.attrs.get("element_shape") is not None:
                        shapes[id(node.inputs[0])] = tuple(node.attrs["element_shape"])
                elif node.op == "ta_read":
                    dtypes[id(node.inputs[0])] = np.dtype(node.type.dtype)
            elif node.op == "ta_unstack":
                dtypes[id(node)] = np.dtype(node.attrs.get("dtype", node.inputs[-1].type.dtype))
            elif node.op == "capture" and node.type.dtype == object:
                union(node, node.attrs["outer"])
            elif node.op == "while":
                cond, body = node.attrs["cond"], node.attrs["body"]
                for i, (init, b_in, c_in, b_out) in enumerate(zip(node.inputs, body.inputs, cond.inputs, body.outputs)):
                    if b_in.type.dtype == object:
                        for other in (b_in, c_in, b_out):
                            union(init, other)
                        for item in getitems.get(id(node), []):
                            if item.attrs["index"] == i:
                                union(item, init)
            elif node.op == "cond":
                true, false = node.attrs["true"], node.attrs["false"]
                for i, (a, b) in enumerate(zip(true.outputs, false.outputs)):
                    if a.type.dtype == object:
                        union(a, b)
                        for item in getitems.get(id(node), []):
                            if item.attrs["index"] == i:
                                union(item, a)
            for value in node.attrs.values():
                if isinstance(value, Graph):
                    walk(value)

    walk(graph)

    def spread(facts: dict[int, Any]) -> dict[int, Any]:
        by_root: dict[int, Any] = {}
        for key, fact in facts.items():
            root = find(key)
            known = by_root.get(root)
            if known is None or (isinstance(fact, tuple) and None in known and None not in fact):
                by_root[root] = fact
        return {key: by_root[find(key)] for key in set(parent) | set(facts) if find(key) in by_root}

    return spread(dtypes), spread(shapes)


# -- control flow -------------------------------------------------------------------------------
# ops that cannot fail or trap on any input, so both branches of a small if may run
_SAFE = frozenset({
    "add", "subtract", "multiply", "negative", "absolute", "maximum", "minimum", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "where", "sign", "copy", "positive", "cast", "isnan", "isinf", "isfinite", "tanh",
    "sin", "cos", "floor", "ceil",
})
_SELECT_LIMIT = 24  # nodes per branch: a larger if keeps its branches apart


def _selectable(node: Node) -> bool:
    """Whether a cond may run as both branches and a Where: small branches of ops that never
    fail, no effects, Variables, TensorArrays or nested control flow, and results whose shapes
    are the same fixed ones in both (Where would broadcast others)."""
    true, false = node.attrs["true"], node.attrs["false"]
    for branch in (true, false):
        computed = [n for n in branch.nodes if n.op not in ("input", "capture", "constant")]
        if len(computed) > _SELECT_LIMIT or not all(n.op in _SAFE or _safe_division(n) for n in computed):
            return False
        if any(n.op == "constant" and n.type.dtype == object for n in branch.nodes):
            return False
    for a, b, type_ in zip(true.outputs, false.outputs, node.type):
        if type_.dtype == object or not a.type.is_fully_defined or a.type.shape != b.type.shape:
            return False
    return True


def _safe_division(node: Node) -> bool:
    """A division that cannot trap: of floats (x / 0 is inf or nan), or by a nonzero literal."""
    if node.op not in ("divide", "true_divide", "floor_divide", "remainder"):
        return False
    if node.type.dtype.kind == "f":
        return True
    template = node.attrs.get("args")
    if template is None or len(template) != 2 or set(node.attrs) != {"args"}:
        return False
    divisor = template[1]
    return isinstance(divisor, (Weak, np.generic)) and _literal(divisor) != 0


def _select_branches(c: _Converter, node: Node, scope: _Scope, pred: str) -> None:
    """Both branches computed, each result chosen with Where: one iteration of a loop body
    pays for a few elementwise ops instead of an If's two subgraph calls."""
    true, false = node.attrs["true"], node.attrs["false"]
    results = []
    for branch in (true, false):
        inner = _Scope(dict(scope.env), dict(scope.variables))
        inner.nodes = scope.nodes  # emitted in place
        c.body(branch, inner)
        results.append([c.cast(scope, inner.env[id(out)], out.type.dtype, type_.dtype)
                        for out, type_ in zip(branch.outputs, node.type)])
    for index, (a, b) in enumerate(zip(*results)):
        scope.env[(id(node), index)] = c.where(scope, pred, a, b, node.type[index].dtype, node.name)


def _cond(c: _Converter, node: Node, scope: _Scope) -> None:
    pred = c.scalar_bool(scope, scope.env[id(node.inputs[0])], node.inputs[0].type, "pred")
    true, false = node.attrs["true"], node.attrs["false"]
    if _selectable(node):
        _select_branches(c, node, scope, pred)
        return
    assigned = _assigned(true) + [v for v in _assigned(false) if v not in _assigned(true)]
    branches = []
    for branch in (true, false):
        inner = _Scope(dict(scope.env), dict(scope.variables))
        c.body(branch, inner)
        outputs = []
        used: set[str] = set()
        for out, type_ in zip(branch.outputs, node.type):
            name = c.cast(inner, inner.env[id(out)], out.type.dtype, type_.dtype)
            final = c.output(inner, name, used, "out")
            outputs.append(c.value_info(final, type_, c.handle_dtypes.get(id(out)) if type_.dtype == object else None))
        for variable in assigned:
            current = inner.variables.get(id(variable), c.variable_names.get(id(variable)))
            if current is None:
                _variable_from_object(c, variable)
                current = c.variable_names[id(variable)]
            final = c.output(inner, current, used, "state")
            outputs.append(c.value_info(final, variable._type))
        branches.append(c.helper.make_graph(inner.nodes, c.fresh(branch.name), [], outputs))
    names = [c.fresh(node.name) for _ in range(len(node.type) + len(assigned))]
    scope.nodes.append(c.helper.make_node("If", [pred], names, then_branch=branches[0], else_branch=branches[1]))
    for index in range(len(node.type)):
        scope.env[(id(node), index)] = names[index]
    for variable, name in zip(assigned, names[len(node.type):]):
        scope.variables[id(variable)] = name


def _variable_from_object(c: _Converter, variable: Any) -> None:
    key = id(variable)
    if key not in c.variable_objects:
        c.variable_objects[key] = variable
        c.variable_names[key] = _unique(str(variable.name), set(c.variable_names.values()))
        c.initializers.append(c.onnx.numpy_helper.from_array(np.asarray(variable._value), c.variable_names[key]))


def _counted(node: Node) -> tuple[int, Any] | None:
    """(index of the counter, its bound) when the loop's whole test is `counter < bound` with a
    loop-invariant bound and the body adds 1 to the integer counter: the loop runs
    max(bound - start, 0) times, which becomes the Loop's trip count."""
    cond, body = node.attrs["cond"], node.attrs["body"]
    (test,) = cond.outputs
    if test.op != "less" or any(n.op not in ("input", "capture", "constant", "less") for n in cond.nodes):
        return None
    template = test.attrs.get("args", (Slot(0), Slot(1)))
    if set(test.attrs) - {"args"} or len(template) != 2 or not isinstance(template[0], Slot):
        return None
    counter = test.inputs[template[0].index]
    if counter not in cond.inputs or counter.type.dtype.kind not in "iu":
        return None
    index = cond.inputs.index(counter)
    bound_item = template[1]
    if isinstance(bound_item, Slot):
        bound = test.inputs[bound_item.index]
        if bound.op == "capture":
            bound = ("outer", bound.attrs["outer"])
        elif bound.op == "constant":
            bound = ("literal", np.asarray(bound.attrs["value"]).item())
        else:
            return None
    else:
        bound = ("literal", _literal(bound_item))
        if not isinstance(bound[1], int):
            return None
    step = body.outputs[index]
    if step.op != "add" or body.inputs[index] not in step.inputs or set(step.attrs) - {"args"}:
        return None
    args = step.attrs.get("args")
    if args is None or len(args) != 2 or not isinstance(args[0], Slot) or step.inputs[args[0].index] is not body.inputs[index]:
        return None
    if _literal(args[1]) != 1 or isinstance(args[1], Slot):
        return None
    return index, bound


def counted_bound_dtype(node: Node, counted: tuple[int, Any]) -> np.dtype:
    return np.dtype(counted[1][1].type.dtype)


def _while(c: _Converter, node: Node, scope: _Scope) -> None:
    cond, body = node.attrs["cond"], node.attrs["body"]
    count = len(node.type)
    assigned = [v for v in _assigned(body) + _assigned(cond)]
    for variable in assigned:
        _variable_from_object(c, variable)
    inits = [scope.env[id(i)] for i in node.inputs[:count]]
    inits = [c.cast(scope, name, i.type.dtype, t.dtype) for name, i, t in zip(inits, node.inputs, node.type)]
    states = [scope.variables.get(id(v), c.variable_names[id(v)]) for v in assigned]
    counted = _counted(node) if node.attrs.get("maximum_iterations") is None else None
    trip = ""
    if counted is not None:  # a trip count; the test need not run
        counter, (kind, bound) = counted
        dtype = node.type[counter].dtype
        bound = scope.env[id(bound)] if kind == "outer" else c.const(scope, bound, dtype)
        start = inits[counter]
        remaining = c.emit(scope, "Sub", [c.cast(scope, bound, np.dtype(dtype), np.dtype(np.int64)) if kind == "literal"
                                      else c.cast(scope, bound, counted_bound_dtype(node, counted), np.dtype(np.int64)),
                                      c.cast(scope, start, dtype, np.dtype(np.int64))], "trip")
        trip = c.emit(scope, "Max", [remaining, c.const(scope, 0, np.int64)], "trip")
        trip = c.emit(scope, "Reshape", [trip, c.const(scope, np.zeros(0, np.int64))], "trip")
        keep_going = c.const(scope, True, np.bool_, hint="cond")
    else:
        # the test before the first iteration
        first = _Scope(dict(scope.env), dict(scope.variables))
        for inp, name in zip(cond.inputs, inits):
            first.env[id(inp)] = name
        c.body(cond, first)
        scope.nodes.extend(first.nodes)
        keep_going = c.scalar_bool(scope, first.env[id(cond.outputs[0])], cond.outputs[0].type, "cond")
    # the body: iteration number, condition, loop variables and Variable states in; condition and them out
    inner = _Scope(dict(scope.env), dict(scope.variables))
    iteration, cond_in = c.fresh("iteration"), c.fresh("cond_in")
    body_inputs = [c.helper.make_tensor_value_info(iteration, c.elem(np.int64), []),
                   c.helper.make_tensor_value_info(cond_in, c.elem(np.bool_), [])]
    for inp, type_ in zip(body.inputs, node.type):
        name = c.fresh(inp.name)
        inner.env[id(inp)] = name
        body_inputs.append(c.value_info(name, type_, c.handle_dtypes.get(id(inp)) if type_.dtype == object else None))
    for variable in assigned:
        name = c.fresh(c.variable_names[id(variable)])
        inner.variables[id(variable)] = name
        body_inputs.append(c.value_info(name, variable._type))
    c.body(body, inner)
    new_values = [inner.env[id(out)] for out in body.outputs]
    if counted is not None:
        cond_out = c.emit(inner, "Identity", [cond_in], "cond_out")
    else:
        test = _Scope(inner.env, inner.variables)
        for inp, name in zip(cond.inputs, new_values):
            test.env[id(inp)] = name
        c.body(cond, test)
        inner.nodes.extend(test.nodes)
        cond_out = c.scalar_bool(inner, test.env[id(cond.outputs[0])], cond.outputs[0].type, "cond_out")
    used: set[str] = set()
    cond_out = c.output(inner, cond_out, used, "cond_out")
    body_outputs = [c.helper.make_tensor_value_info(cond_out, c.elem(np.bool_), [])]
    for out, type_ in zip(body.outputs, node.type):
        final = c.output(inner, inner.env[id(out)], used, "carried")
        body_outputs.append(c.value_info(final, type_, c.handle_dtypes.get(id(out)) if type_.dtype == object else None))
    for variable in assigned:
        final = c.output(inner, inner.variables[id(variable)], used, "state")
        body_outputs.append(c.value_info(final, variable._type))
    body_graph = c.helper.make_graph(inner.nodes, c.fresh("loop_body"), body_inputs, body_outputs)
    limit = node.attrs.get("maximum_iterations")
    if limit is not None:
        trip = c.const(scope, np.int64(limit), np.int64)
    names = [c.fresh(node.name) for _ in range(count + len(assigned))]
    scope.nodes.append(c.helper.make_node("Loop", [trip, keep_going, *inits, *states], names, body=body_graph))
    for index in range(count):
        scope.env[(id(node), index)] = names[index]
    for variable, name in zip(assigned, names[count:]):
        scope.variables[id(variable)] = name


_HANDLERS: dict[str, Callable[[_Converter, Node, _Scope], Any]] = {
    "constant": _constant, "cond": _cond, "while": _while, "floor_divide": _floor_divide,
    "remainder": _remainder, "mod": _remainder, "isinf": _isinf, "isnan": _isnan, "isfinite": _isfinite, "any": _any_all,
    "all": _any_all, "where": _where_op, "cast": _cast_op, "ones_like": _fill_like, "zeros_like": _fill_like,
    "index": _index, "staged_range": _staged_range, "read_variable": _read_variable,
    "assign_variable": _assign_variable, "ta_new": _ta_new, "ta_write": _ta_write, "ta_read": _ta_read,
    "ta_size": _ta_size, "ta_stack": _ta_stack, "ta_unstack": _ta_unstack, "transpose": _transpose,
    "reshape": _reshape, "expand_dims": _expand_dims, "concatenate": _join, "stack": _join,
    "cumsum": _cumsum, "shape": _shape_of, "size": _shape_of,
}


def graph_to_onnx(graph: Graph, output_names: Sequence[str] | None = None, opset: int = OPSET,
                  name: str | None = None) -> Any:
    """An `onnx.ModelProto` computing `graph`: inputs named as the graph's, outputs named
    `output_names` (default output_0, ...), then `<variable>:new` for each Variable assigned."""
    c = _Converter(opset)
    c.handle_dtypes, c.handle_shapes = _handle_dtypes(graph)
    scope = _Scope({}, {})
    inputs = []
    for node in graph.inputs:
        if node.type.dtype == object or node.type.dtype.kind not in "biuf":
            raise UnsupportedOpError(f"the input {node.name!r} of type {node.type} cannot be an ONNX input")
        scope.env[id(node)] = node.name
        inputs.append(c.value_info(node.name, node.type, shape=True))
    c.body(graph, scope)
    names = list(output_names) if output_names is not None else [f"output_{i}" for i in range(len(graph.outputs))]
    outputs = []
    for out, out_name in zip(graph.outputs, names):
        if out.type.dtype == object:
            raise UnsupportedOpError(f"{_where(out)}the result {out.name!r} is a TensorArray; return its stack()")
        scope.nodes.append(c.helper.make_node("Identity", [scope.env[id(out)]], [out_name]))
        outputs.append(c.value_info(out_name, out.type))
    for key, variable in c.variable_objects.items():
        # also an input, with the initializer as its default: a caller may feed the state in
        inputs.append(c.value_info(c.variable_names[key], variable._type))
        if key in scope.variables:
            state = f"{c.variable_names[key]}:new"
            scope.nodes.append(c.helper.make_node("Identity", [scope.variables[key]], [state]))
            outputs.append(c.value_info(state, variable._type))
    onnx_graph = c.helper.make_graph(scope.nodes, name or graph.name, inputs, outputs, initializer=c.initializers)
    model = c.helper.make_model(onnx_graph, opset_imports=[c.helper.make_opsetid("", opset)],
                                producer_name="autograph")
    model.ir_version = min(model.ir_version, 9)
    return model
