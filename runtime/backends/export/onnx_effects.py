"""ONNX lowerings of effects: `ag.print` left out (ONNX cannot print), `assert` kept as a check.

ONNX has neither a print nor an assert operator. As torch.onnx and tf2onnx do
with prints, the export leaves `ag.print` out; the converter records the line
of each (`Converter.dropped`) so `ag.onnx` can warn about each, and refuses
them instead when asked (`drop_prints=False`).

An assert is not left out: the model must not return results the function
would have refused. It becomes an If on the condition whose else branch fails
in onnxruntime (a Reshape of one element to two), the node named after the
assertion's message and line, so the runtime's error says which assert
failed. Its output, read by nothing, is kept (`Converter.keep`): onnxruntime
runs every node of a graph, also those whose results nothing reads.
"""

from __future__ import annotations

import numpy as np

from runtime.backends.export.onnx_emit import Converter, Handler, Scope, unsupported
from runtime.ir.graph import Node
from runtime.ir.types import TensorType

__all__ = ["HANDLERS", "assert_name"]


def _print(c: Converter, node: Node, scope: Scope) -> None:
    if not c.drop_prints:
        raise unsupported(node, " (export with drop_prints=True to leave prints out of the model)")
    c.dropped.append(node)
    return None


def assert_name(node: Node) -> str:
    """The failing node's name: what onnxruntime's error shows."""
    message = node.attrs.get("message") or ""
    where = f" at {node.origin}" if node.origin is not None else ""
    return f"assertion failed{where}: {message}".rstrip(": ")


def _assert(c: Converter, node: Node, scope: Scope) -> None:
    value = node.inputs[0]
    ok = c.scalar_bool(scope, scope.env[id(value)], value.type, "check")  # one element, as Python's assert
    then_scope = Scope(scope.env, scope.variables)
    passed = c.emit(then_scope, "Identity", [ok], "passed")
    else_scope = Scope(scope.env, scope.variables)
    number = c.emit(else_scope, "Cast", [ok], "failed", to=c.elem(np.int64))
    two = c.const(else_scope, np.array([2], np.int64))
    else_scope.nodes.append(c.helper.make_node("Reshape", [number, two], [c.fresh("failed")], name=assert_name(node)))
    failed = c.emit(else_scope, "Cast", [else_scope.nodes[-1].output[0]], "failed", to=c.elem(np.bool_))
    flag = TensorType(np.dtype(bool), ())
    then_graph = c.helper.make_graph(then_scope.nodes, c.fresh("check"), [], [c.value_info(passed, flag)])
    else_graph = c.helper.make_graph(else_scope.nodes, c.fresh("fail"), [], [c.value_info(failed, flag, shape=False)])
    checked = c.fresh("checked")
    scope.nodes.append(c.helper.make_node("If", [ok], [checked], then_branch=then_graph, else_branch=else_graph,
                                          name=assert_name(node)))
    c.keep.add(checked)
    return None


HANDLERS: dict[str, Handler] = {"print": _print, "assert": _assert}
