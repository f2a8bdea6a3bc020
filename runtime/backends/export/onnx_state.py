"""ONNX lowerings of state: Variables as initializers threaded through the model, TensorArrays as sequences.

A Variable becomes an initializer named after it (and an input defaulting to
it); each assignment makes a new value that later reads use, and
onnx_control.py threads the Variables a branch or loop body assigns through
If and Loop. A TensorArray becomes an ONNX sequence (SequenceInsert,
SequenceAt, ConcatFromSequence); `tensor_array_types` finds each handle's
element dtype and shape, which the graph's object-typed handles do not carry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.export.onnx_emit import Converter, Handler, Scope, unsupported
from runtime.ir.graph import Graph, Node
from runtime.ir.types import TensorType

__all__ = ["HANDLERS", "assigned_variables", "variable_from_object", "tensor_array_types"]


def _variable(c: Converter, node: Node) -> Any:
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


def _read_variable(c: Converter, node: Node, scope: Scope) -> str:
    variable = _variable(c, node)
    current = scope.variables.get(id(variable), c.variable_names[id(variable)])
    return c.emit(scope, "Identity", [current], node.name)


def _assign_variable(c: Converter, node: Node, scope: Scope) -> None:
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


def assigned_variables(graph: Graph) -> list[Any]:
    """The Variables `graph` and its subgraphs assign, each once."""
    found: dict[int, Any] = {}
    for node in graph.nodes:
        if node.op == "assign_variable":
            variable = node.attrs["ref"]()
            if variable is not None:
                found.setdefault(id(variable), variable)
        for value in node.attrs.values():
            if isinstance(value, Graph):
                for variable in assigned_variables(value):
                    found.setdefault(id(variable), variable)
    return list(found.values())


def variable_from_object(c: Converter, variable: Any) -> None:
    key = id(variable)
    if key not in c.variable_objects:
        c.variable_objects[key] = variable
        c.variable_names[key] = _unique(str(variable.name), set(c.variable_names.values()))
        c.initializers.append(c.onnx.numpy_helper.from_array(np.asarray(variable._value), c.variable_names[key]))


# -- TensorArrays -------------------------------------------------------------------------------
def _ta_new(c: Converter, node: Node, scope: Scope) -> str:
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


def _ta_write(c: Converter, node: Node, scope: Scope) -> str:
    handle, index, value = node.inputs
    element = c.cast(scope, scope.env[id(value)], value.type.dtype, node.attrs["dtype"])
    if id(node) in c.scan_writes:  # the element is the Loop body's scan output (onnx_scan.py)
        return element
    seq = scope.env[id(handle)]
    position = c.emit(scope, "Cast", [scope.env[id(index)]], "index", to=c.elem(np.int64))
    if not node.attrs.get("dynamic"):  # a fixed size: every write replaces (out of bounds fails, as in Python)
        erased = c.emit(scope, "SequenceErase", [seq, position], "erased")
        return c.emit(scope, "SequenceInsert", [erased, element, position], node.name)
    length = c.emit(scope, "SequenceLength", [seq], "length")
    inside = c.emit(scope, "Less", [position, length], "inside")
    dtype = node.attrs["dtype"]
    then_scope = Scope(scope.env, scope.variables)
    erased = c.emit(then_scope, "SequenceErase", [seq, position], "erased")
    replaced = c.emit(then_scope, "SequenceInsert", [erased, element, position], "replaced")
    else_scope = Scope(scope.env, scope.variables)
    appended = c.emit(else_scope, "SequenceInsert", [seq, element, position], "appended")
    out = c.fresh(node.name)
    then_graph = c.helper.make_graph(then_scope.nodes, c.fresh("overwrite"), [],
                                     [c.value_info(replaced, None, dtype)])
    else_graph = c.helper.make_graph(else_scope.nodes, c.fresh("append"), [],
                                     [c.value_info(appended, None, dtype)])
    scope.nodes.append(c.helper.make_node("If", [inside], [out], then_branch=then_graph, else_branch=else_graph))
    return out


def _ta_read(c: Converter, node: Node, scope: Scope) -> str:
    handle, index = node.inputs[:2]
    seq = scope.env[id(handle)]
    if seq in c.stacked:  # a Loop's scan output: the element is a row of the stack
        return c.emit(scope, "Gather", [c.stacked[seq], scope.env[id(index)]], node.name, axis=0)
    return c.emit(scope, "SequenceAt", [seq, scope.env[id(index)]], node.name)


def _ta_size(c: Converter, node: Node, scope: Scope) -> str:
    seq = scope.env[id(node.inputs[0])]
    if seq in c.stacked:  # a Loop's scan output: its first dimension
        rows = c.emit(scope, "Shape", [c.stacked[seq]], "rows", start=0, end=1)
        return c.emit(scope, "Reshape", [rows, c.const(scope, np.zeros(0, np.int64))], node.name)
    return c.emit(scope, "SequenceLength", [seq], node.name)


def _ta_unstack(c: Converter, node: Node, scope: Scope) -> str:
    value = node.inputs[-1]
    name = c.cast(scope, scope.env[id(value)], value.type.dtype, node.attrs.get("dtype", value.type.dtype))
    return c.emit(scope, "SplitToSequence", [name], node.name, axis=0, keepdims=0)


def _ta_stack(c: Converter, node: Node, scope: Scope) -> str:
    seq = scope.env[id(node.inputs[0])]
    if seq in c.stacked:  # filled as a Loop's scan output: already stacked
        return c.emit(scope, "Identity", [c.stacked[seq]], node.name)
    dtype = node.attrs["dtype"]
    element_shape = node.attrs.get("element_shape")
    stacked_scope = Scope(scope.env, scope.variables)
    stacked = c.emit(stacked_scope, "ConcatFromSequence", [seq], node.name, axis=0, new_axis=1)
    if element_shape is None or None in element_shape:
        scope.nodes.extend(stacked_scope.nodes)
        return stacked
    empty_scope = Scope(scope.env, scope.variables)
    empty = c.emit(empty_scope, "Identity", [c.const(empty_scope, np.zeros((0, *element_shape), dtype))], "empty")
    length = c.emit(scope, "SequenceLength", [seq], "length")
    is_empty = c.emit(scope, "Equal", [length, c.const(scope, 0, np.int64)], "empty")
    out = c.fresh(node.name)
    info = TensorType(dtype, None)
    then_graph = c.helper.make_graph(empty_scope.nodes, c.fresh("empty"), [], [c.value_info(empty, info)])
    else_graph = c.helper.make_graph(stacked_scope.nodes, c.fresh("stack"), [], [c.value_info(stacked, info)])
    scope.nodes.append(c.helper.make_node("If", [is_empty], [out], then_branch=then_graph, else_branch=else_graph))
    return out


def tensor_array_types(graph: Graph) -> tuple[dict[int, np.dtype], dict[int, tuple]]:
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


HANDLERS: dict[str, Handler] = {
    "read_variable": _read_variable, "assign_variable": _assign_variable, "ta_new": _ta_new,
    "ta_write": _ta_write, "ta_read": _ta_read, "ta_size": _ta_size, "ta_stack": _ta_stack,
    "ta_unstack": _ta_unstack,
}
