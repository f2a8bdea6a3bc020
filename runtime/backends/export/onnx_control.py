"""ONNX lowerings of control flow: a staged if becomes an If (or a Where), a staged loop a Loop.

A `cond` whose branches are a few ops that cannot fail, with results of one
fixed shape, runs both branches and picks each result with Where (an If
inside a loop body costs onnxruntime a subgraph call per iteration); any
other `cond` is an If whose branches read outer values by name. A `while`
is a Loop: a counted one (`for i in ag.range(n)`) gets its trip count and no
test, any other evaluates its test before the loop and at the end of each
iteration. The Variables a branch or body assigns are threaded through as
extra values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.export.onnx_emit import Converter, Handler, Scope, literal
from runtime.backends.export.onnx_scan import scan_writes
from runtime.backends.export.onnx_state import assigned_variables, variable_from_object
from runtime.ir.graph import Node
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Weak

__all__ = ["HANDLERS", "counted_bound_dtype"]


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
    return isinstance(divisor, (Weak, np.generic)) and literal(divisor) != 0


def _select_branches(c: Converter, node: Node, scope: Scope, pred: str) -> None:
    """Both branches computed, each result chosen with Where: one iteration of a loop body
    pays for a few elementwise ops instead of an If's two subgraph calls."""
    true, false = node.attrs["true"], node.attrs["false"]
    results = []
    for branch in (true, false):
        inner = Scope(dict(scope.env), dict(scope.variables))
        inner.nodes = scope.nodes  # emitted in place
        c.body(branch, inner)
        results.append([c.cast(scope, inner.env[id(out)], out.type.dtype, type_.dtype)
                        for out, type_ in zip(branch.outputs, node.type)])
    for index, (a, b) in enumerate(zip(*results)):
        scope.env[(id(node), index)] = c.where(scope, pred, a, b, node.type[index].dtype, node.name)


def _cond(c: Converter, node: Node, scope: Scope) -> None:
    pred = c.scalar_bool(scope, scope.env[id(node.inputs[0])], node.inputs[0].type, "pred")
    true, false = node.attrs["true"], node.attrs["false"]
    if _selectable(node):
        _select_branches(c, node, scope, pred)
        return
    assigned = assigned_variables(true) + [v for v in assigned_variables(false) if v not in assigned_variables(true)]
    branches = []
    inners = []
    for branch in (true, false):
        inner = Scope(dict(scope.env), dict(scope.variables))
        c.body(branch, inner)
        inners.append(inner)
    if not node.type and not assigned:  # an if for its effects: checks, or only prints left out
        if not any(out in c.keep for inner in inners for n in inner.nodes for out in n.output):
            return  # no check in either branch: nothing to run
        flag = TensorType(np.dtype(bool), ())
        for branch, inner in zip((true, false), inners):
            done = c.emit(inner, "Identity", [c.const(inner, True, np.bool_)], "done")
            branches.append(c.helper.make_graph(inner.nodes, c.fresh(branch.name), [], [c.value_info(done, flag)]))
        checked = c.fresh(node.name)
        scope.nodes.append(c.helper.make_node("If", [pred], [checked], then_branch=branches[0], else_branch=branches[1]))
        c.keep.add(checked)
        return
    for branch, inner in zip((true, false), inners):
        outputs = []
        used: set[str] = set()
        for out, type_ in zip(branch.outputs, node.type):
            name = c.cast(inner, inner.env[id(out)], out.type.dtype, type_.dtype)
            final = c.output(inner, name, used, "out")
            outputs.append(c.value_info(final, type_, c.handle_dtypes.get(id(out)) if type_.dtype == object else None))
        for variable in assigned:
            current = inner.variables.get(id(variable), c.variable_names.get(id(variable)))
            if current is None:
                variable_from_object(c, variable)
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
        bound = ("literal", literal(bound_item))
        if not isinstance(bound[1], int):
            return None
    step = body.outputs[index]
    if step.op != "add" or body.inputs[index] not in step.inputs or set(step.attrs) - {"args"}:
        return None
    args = step.attrs.get("args")
    if args is None or len(args) != 2 or not isinstance(args[0], Slot) or step.inputs[args[0].index] is not body.inputs[index]:
        return None
    if literal(args[1]) != 1 or isinstance(args[1], Slot):
        return None
    return index, bound


def counted_bound_dtype(node: Node, counted: tuple[int, Any]) -> np.dtype:
    return np.dtype(counted[1][1].type.dtype)


def _while(c: Converter, node: Node, scope: Scope) -> None:
    cond, body = node.attrs["cond"], node.attrs["body"]
    count = len(node.type)
    assigned = [v for v in assigned_variables(body) + assigned_variables(cond)]
    for variable in assigned:
        variable_from_object(c, variable)
    counted = _counted(node) if node.attrs.get("maximum_iterations") is None else None
    scans = scan_writes(node, counted)  # TensorArrays stacked as scan outputs, not carried
    carried = [i for i in range(count) if i not in scans]
    inits = [scope.env[id(i)] for i in node.inputs[:count]]
    inits = [c.cast(scope, name, i.type.dtype, t.dtype) for name, i, t in zip(inits, node.inputs, node.type)]
    inits = [inits[i] for i in carried]
    states = [scope.variables.get(id(v), c.variable_names[id(v)]) for v in assigned]
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
        first = Scope(dict(scope.env), dict(scope.variables))
        for inp, name in zip(cond.inputs, inits):
            first.env[id(inp)] = name
        c.body(cond, first)
        scope.nodes.extend(first.nodes)
        keep_going = c.scalar_bool(scope, first.env[id(cond.outputs[0])], cond.outputs[0].type, "cond")
    # the body: iteration number, condition, loop variables and Variable states in; condition and them out
    inner = Scope(dict(scope.env), dict(scope.variables))
    iteration, cond_in = c.fresh("iteration"), c.fresh("cond_in")
    body_inputs = [c.helper.make_tensor_value_info(iteration, c.elem(np.int64), []),
                   c.helper.make_tensor_value_info(cond_in, c.elem(np.bool_), [])]
    for index, (inp, type_) in enumerate(zip(body.inputs, node.type)):
        if index in scans:
            inner.env[id(inp)] = ""  # read by nothing but its write, which gives the element
            c.scan_writes.add(id(scans[index]))
            continue
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
        test = Scope(inner.env, inner.variables)
        for inp, name in zip(cond.inputs, new_values):
            test.env[id(inp)] = name
        c.body(cond, test)
        inner.nodes.extend(test.nodes)
        cond_out = c.scalar_bool(inner, test.env[id(cond.outputs[0])], cond.outputs[0].type, "cond_out")
    used: set[str] = set()
    cond_out = c.output(inner, cond_out, used, "cond_out")
    body_outputs = [c.helper.make_tensor_value_info(cond_out, c.elem(np.bool_), [])]
    for out, type_ in [(body.outputs[i], node.type[i]) for i in carried]:
        final = c.output(inner, inner.env[id(out)], used, "carried")
        body_outputs.append(c.value_info(final, type_, c.handle_dtypes.get(id(out)) if type_.dtype == object else None))
    for variable in assigned:
        final = c.output(inner, inner.variables[id(variable)], used, "state")
        body_outputs.append(c.value_info(final, variable._type))
    for write in scans.values():
        final = c.output(inner, inner.env[id(write)], used, "scan")
        body_outputs.append(c.value_info(final, TensorType(write.attrs["dtype"], write.inputs[2].type.shape)))
    body_graph = c.helper.make_graph(inner.nodes, c.fresh("loop_body"), body_inputs, body_outputs)
    limit = node.attrs.get("maximum_iterations")
    if limit is not None:
        trip = c.const(scope, np.int64(limit), np.int64)
    names = [c.fresh(node.name) for _ in range(len(carried) + len(assigned) + len(scans))]
    scope.nodes.append(c.helper.make_node("Loop", [trip, keep_going, *inits, *states], names, body=body_graph))
    for index, name in zip(carried, names):
        scope.env[(id(node), index)] = name
    for variable, name in zip(assigned, names[len(carried):]):
        scope.variables[id(variable)] = name
    for index, stacked in zip(scans, names[len(carried) + len(assigned):]):
        # the array as a sequence for any use but stack(); dropped when nothing reads it
        sequence = c.emit(scope, "SplitToSequence", [stacked], node.name, axis=0, keepdims=0)
        c.stacked[sequence] = stacked
        scope.env[(id(node), index)] = sequence


HANDLERS: dict[str, Handler] = {"cond": _cond, "while": _while}
