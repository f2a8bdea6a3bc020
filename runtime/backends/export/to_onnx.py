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

Effects (onnx_effects.py): `print` is left out (or refused with drop_prints=False),
`assert` becomes an If whose other branch fails, naming the assertion;
`py_function` has no ONNX form.

This module is the driver: the emitter is onnx_emit.py, the lowerings are
onnx_ops.py (array ops), onnx_state.py (Variables, TensorArrays) and
onnx_control.py (If, Loop).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime.backends.export import onnx_control, onnx_effects, onnx_ops, onnx_state
from runtime.backends.export.onnx_emit import (
    OPSET,
    Converter,
    Handler,
    Scope,
    UnsupportedOpError,
    where_of,
)
from runtime.backends.export.onnx_scan import drop_unused
from runtime.backends.export.onnx_state import tensor_array_types
from runtime.ir.graph import Graph

__all__ = ["graph_to_onnx"]

_HANDLERS: dict[str, Handler] = {
    **onnx_ops.HANDLERS, **onnx_state.HANDLERS, **onnx_control.HANDLERS, **onnx_effects.HANDLERS,
}


def graph_to_onnx(graph: Graph, output_names: Sequence[str] | None = None, opset: int = OPSET,
                  name: str | None = None, drop_prints: bool = True, dropped: list | None = None) -> Any:
    """An `onnx.ModelProto` computing `graph`: inputs named as the graph's, outputs named
    `output_names` (default output_0, ...), then `<variable>:new` for each Variable assigned.

    `drop_prints`: leave `print` nodes out (each is appended to `dropped`), or refuse them."""
    c = Converter(opset, _HANDLERS)
    c.drop_prints = drop_prints
    c.handle_dtypes, c.handle_shapes = tensor_array_types(graph)
    scope = Scope({}, {})
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
            raise UnsupportedOpError(f"{where_of(out)}the result {out.name!r} is a TensorArray; return its stack()")
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
    drop_unused(model, c.keep)
    if dropped is not None:
        dropped.extend(c.dropped)
    return model
