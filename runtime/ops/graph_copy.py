"""clone_into: copy a graph's nodes into another graph, subgraphs included.

Transforms that rebuild part of a program elsewhere (a gradient's recomputed
forward pass, a recorded Function call joining a tape's graph) copy nodes
with this; it knows which ops are effects, so a recomputation can leave
them out.
"""

from __future__ import annotations

from runtime.ir.graph import Graph, Node
from runtime.ir.origin import Origin
from runtime.ir.subgraphs import outer_inputs
from runtime.ir.types import TensorType
from runtime.ops.registry import OPS

__all__ = ["clone_into"]


def _is_handle(type_: object) -> bool:
    return isinstance(type_, TensorType) and type_.dtype == object


def clone_into(
    target: Graph, source: Graph, mapping: dict[Node, Node], origin: Origin | None = None,
    recompute: bool = False, ops: dict[str, str] | None = None,
) -> dict[Node, Node]:
    """Copy `source`'s nodes into `target`; `mapping` gives its inputs (and any node) their copies.

    A capture of `source` maps to its outer node's copy when the mapping has
    one, else to the outer node itself (which `target`, nested at least as
    deep, captures in turn). `recompute`: the copy only recomputes values for
    a backward pass, so effects without a value (print, assign, assert) are
    left out, in nested subgraphs too. `ops` renames ops in the copy. Returns
    the completed mapping.
    """
    env = dict(mapping)
    for node in source.nodes:
        if node in env:
            continue
        if recompute and _effect_only(node):
            continue
        if node.op == "input":
            raise AssertionError(f"input {node.name} of {source.name} has no value in the copy\n{source}")
        if node.op == "capture":
            outer = node.attrs["outer"]
            env[node] = target.own(env.get(outer, outer))  # a node of `target`, even when only returned
            continue
        if node.op == "constant":
            env[node] = target.add_node("constant", (), dict(node.attrs), node.type, node.origin, name=node.name)
            continue
        attrs = dict(node.attrs)
        inputs = tuple(env[i] for i in node.inputs)
        if node.op == "cond":
            attrs["true"] = _clone_sub(target, node.attrs["true"], env, (), recompute, ops)
            attrs["false"] = _clone_sub(target, node.attrs["false"], env, (), recompute, ops)
            inputs = (inputs[0], *outer_inputs([attrs["true"], attrs["false"]]))
        elif node.op == "while":
            count = len(node.attrs["body"].inputs)
            attrs["cond"] = _clone_sub(target, node.attrs["cond"], env, node.attrs["cond"].inputs, recompute, ops)
            attrs["body"] = _clone_sub(target, node.attrs["body"], env, node.attrs["body"].inputs, recompute, ops)
            inputs = (*inputs[:count], *outer_inputs([attrs["cond"], attrs["body"]]))
        owned = tuple(target.own(i) for i in inputs)
        op = node.op if ops is None else ops.get(node.op, node.op)
        env[node] = target.add_node(op, owned, attrs, node.type, node.origin or origin, name=node.name)
    return env


def _effect_only(node: Node) -> bool:
    """An effect whose result is no value (print, assign, assert): a recomputation skips it."""
    spec = OPS.get(node.op)
    return spec is not None and spec.effectful and _is_handle(node.type)


def _clone_sub(parent: Graph, sub: Graph, outer_env: dict[Node, Node], inputs, recompute: bool = False,
               ops: dict[str, str] | None = None) -> Graph:
    copy = Graph(sub.name, parent=parent)
    mapping: dict[Node, Node] = {}
    for node in inputs:
        mapping[node] = copy.add_input(node.type, node.name, node.origin)
    for node in sub.nodes:
        if node.op == "capture":
            outer = node.attrs["outer"]
            mapping[node] = outer_env.get(outer, outer)
    env = clone_into(copy, sub, mapping, None, recompute, ops)
    copy.set_outputs([env[o] for o in sub.outputs])
    return copy.finish()
