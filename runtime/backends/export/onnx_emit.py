"""The ONNX emitter's state and building blocks, shared by every op's lowering.

A `Converter` owns what the whole model accumulates (initializers, fresh
names, the Variables met, the TensorArrays' element types) and the small
steps every lowering uses: `emit` a node, share a `const`, `cast`, `where`,
typed `value_info`s. `Converter.body` walks a (sub)graph in a `Scope` and
calls each op's handler from the table it is given (to_onnx.py puts the
tables of onnx_ops.py, onnx_state.py and onnx_control.py together), so the
lowerings import this module and never each other's driver.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import AutographError
from runtime.ir.graph import Graph, Node
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Weak

__all__ = [
    "OPSET", "UnsupportedOpError", "DroppedPrintWarning", "unsupported", "where_of", "literal", "Scope", "Converter", "Handler",
]

OPSET = 18


class UnsupportedOpError(AutographError, ValueError):
    """An op of the graph has no ONNX form (or not with these arguments)."""


class DroppedPrintWarning(UserWarning):
    """An `ag.print` the exported ONNX model leaves out (ONNX cannot print)."""


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise ImportError(
            "exporting to ONNX needs the onnx package: pip install 'autograph[onnx]'"
        ) from None
    return onnx


def where_of(node: Node) -> str:
    return f"{node.origin}: " if node.origin is not None else ""


def unsupported(node: Node, why: str = "") -> UnsupportedOpError:
    text = node.origin.excerpt() if node.origin is not None and node.origin.text else ""
    return UnsupportedOpError(
        f"{where_of(node)}the op {node.op!r} has no ONNX form{why}; it cannot be exported to ONNX. "
        f"Rewrite this line with operations that export (docs/saving.md lists them), or save the "
        f"function with ag.saved_model instead.\n{text}".rstrip()
    )


def literal(item: Any) -> Any:
    if isinstance(item, Weak):
        return item.value
    if isinstance(item, np.generic):
        return item.item()
    if isinstance(item, tuple):
        return tuple(literal(i) for i in item)
    return item


class Scope:
    """The ONNX nodes of one (sub)graph being emitted, with the names of values and Variable states."""

    def __init__(self, env: dict[int, str], variables: dict[int, str]) -> None:
        self.nodes: list = []
        self.env = env  # id(Node) -> ONNX value name
        self.variables = variables  # id(Variable) -> the name holding its current value


# (converter, node, scope) -> the ONNX name of the node's value, or None when the handler
# records the node's values itself (a cond's or loop's results)
Handler = Callable[["Converter", Node, Scope], Any]

class Converter:
    """Emits the ONNX nodes of a graph, op by op, with the handlers it is given."""

    def __init__(self, opset: int, handlers: Mapping[str, Handler]) -> None:
        self.onnx = _onnx()
        self.helper = self.onnx.helper
        self.opset = opset
        self.handlers = handlers
        self._names = itertools.count()
        self.initializers: list = []
        self.variable_objects: dict[int, Any] = {}
        self.variable_names: dict[int, str] = {}
        self._constants: dict[tuple, str] = {}  # (dtype, shape, bytes) -> its initializer's name
        self.handle_dtypes: dict[int, np.dtype] = {}
        self.handle_shapes: dict[int, tuple] = {}
        # TensorArrays filled as Loop scan outputs (onnx_scan.py): the body's writes that give
        # their element, and each such array's sequence name -> the stacked tensor
        self.scan_writes: set[int] = set()
        self.stacked: dict[str, str] = {}
        # effects (onnx_effects.py): prints left out, or refused; values no node reads that stay
        self.drop_prints = True
        self.dropped: list[Node] = []
        self.keep: set[str] = set()

    # -- helpers -----------------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        return f"{hint}__{next(self._names)}"

    def emit(self, scope: Scope, op: str, inputs: Sequence[str], hint: str, outputs: int = 1, **attrs: Any):
        names = [self.fresh(hint) for _ in range(outputs)]
        scope.nodes.append(self.helper.make_node(op, list(inputs), names, **attrs))
        return names[0] if outputs == 1 else names

    def const(self, scope: Scope, value: Any, dtype: Any = None, hint: str = "const") -> str:
        """A constant, as an initializer of the whole model: a loop body reads it, never rebuilds it."""
        array = np.asarray(value, dtype=dtype)
        key = (array.dtype.str, array.shape, array.tobytes())
        name = self._constants.get(key)
        if name is None:
            name = self._constants[key] = self.fresh(hint)
            self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
        return name

    def scalar_bool(self, scope: Scope, name: str, type_: TensorType, hint: str) -> str:
        """A test's value as the bool scalar If and Loop take (cast and reshaped only if needed)."""
        name = self.cast(scope, name, type_.dtype, np.dtype(bool))
        if type_.shape != ():
            name = self.emit(scope, "Reshape", [name, self.const(scope, np.zeros(0, np.int64))], hint)
        return name

    def output(self, scope: Scope, name: str, used: set[str], hint: str) -> str:
        """`name` as an output of the subgraph `scope` builds: itself when a node there computes
        it (and no other output is it), else an Identity of it."""
        produced = {out for node in scope.nodes for out in node.output}
        if name in produced and name not in used:
            used.add(name)
            return name
        name = self.emit(scope, "Identity", [name], hint)
        used.add(name)
        return name

    def where(self, scope: Scope, cond: str, a: str, b: str, dtype: np.dtype, hint: str) -> str:
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

    def cast(self, scope: Scope, name: str, source: np.dtype, target: np.dtype) -> str:
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
    def body(self, graph: Graph, scope: Scope) -> None:
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
            handler = self.handlers.get(node.op)
            if handler is None:
                raise unsupported(node)
            result = handler(self, node, scope)
            if result is not None:
                scope.env[id(node)] = result

    def operands(self, node: Node, scope: Scope) -> list[Any]:
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
                out.append(("literal", literal(item), item.dtype if isinstance(item, np.generic) else None))
            else:
                raise unsupported(node, f" with the argument {item!r}")
        return out

    def materialize(self, scope: Scope, operand: tuple, dtype: np.dtype) -> str:
        kind, value, source = operand
        if kind == "value":
            return self.cast(scope, value, source, dtype)
        return self.const(scope, value, dtype)
