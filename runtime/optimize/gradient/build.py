"""Emitting gradient nodes: calls typed by the ops' own rules, constants, sums, graph copies.

The gradient transform writes ordinary nodes into an ordinary Graph, so what
it makes is typed by each op's registered `infer` and runs through every
backend like any traced op. `Emitter` is the one place that adds them:

    em = Emitter(graph, origin)
    gx = em.call("multiply", g, em.call("cos", x))   # np.multiply(g, np.cos(x))
    em.call("sum", g, axis=(0,), keepdims=True)       # template: Slot(0), axis literal

`clone_into` copies a graph's nodes into another graph (a loop body into
the backward loop's body, a branch into the gradient cond's branch), with
nested cond/while subgraphs copied under their new parent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.calls import Slot, Span, Weak
from runtime.ops.registry import get_op
from runtime.origin import Origin
from runtime.types import TensorType

__all__ = ["Emitter", "clone_into", "is_float", "is_handle", "differentiable"]

_PY_SCALARS = (bool, int, float, complex)


def is_float(type_: Any) -> bool:
    return isinstance(type_, TensorType) and type_.dtype.kind in "fc"


def is_handle(type_: Any) -> bool:
    """A TensorArray handle (dtype object): its gradient is a list of element gradients."""
    return isinstance(type_, TensorType) and type_.dtype == object


def differentiable(type_: Any) -> bool:
    return is_float(type_) or is_handle(type_)


def _template(value: Any, inputs: list[Node]) -> Any:
    if isinstance(value, Node):
        inputs.append(value)
        return Slot(len(inputs) - 1)
    if type(value) in _PY_SCALARS:
        return Weak(value)
    if isinstance(value, (list, tuple)):
        return tuple(_template(v, inputs) for v in value)
    if isinstance(value, slice):
        return Span(*(_template(v, inputs) for v in (value.start, value.stop, value.step)))
    return value


class Emitter:
    """Adds typed nodes to `graph`, each with `origin` (the line that asked for the gradient)."""

    def __init__(self, graph: Graph, origin: Origin | None) -> None:
        self.graph = graph
        self.origin = origin

    def call(self, op: str, *args: Any, name: str | None = None, **kwargs: Any) -> Node:
        """`np.<op>(*args, **kwargs)` with Nodes as inputs and everything else literal."""
        if op in ("sum_to", "reshape_like") and not kwargs and _same_type(args[0], args[1]):
            return args[0]  # nothing was broadcast: the gradient already has the input's shape
        inputs: list[Node] = []
        template = tuple(_template(a, inputs) for a in args)
        attrs = {key: _template(v, inputs) for key, v in kwargs.items()}
        if len(template) != len(inputs) or any(
            type(t) is not Slot or t.index != i for i, t in enumerate(template)
        ):
            attrs["args"] = template
        return self.node(op, tuple(inputs), attrs, name=name)

    def node(self, op: str, inputs: tuple[Node, ...], attrs: dict[str, Any], type_: Any = None,
             name: str | None = None) -> Node:
        """A node with explicit attrs; typed by the op's rule unless `type_` is given."""
        owned = tuple(self.graph.own(n) for n in inputs)
        if type_ is None:
            type_ = get_op(op).infer([n.type for n in owned], attrs)
        return self.graph.add_node(op, owned, attrs, type_, self.origin, name=name or "grad")

    def invariant(self, op: str, value: Node) -> Node:
        """`op(value)` for a value captured from the enclosing graph, computed there once
        (a loop's transposed weights) rather than at every iteration."""
        parent = self.graph.parent
        if value.op != "capture" or parent is None or parent.finished:
            return self.call(op, value)
        outer = value.attrs["outer"]
        made = Emitter(parent, self.origin).call(op, outer)
        return self.graph.own(made)

    def constant(self, value: Any, dtype: Any = None) -> Node:
        array = np.asarray(value, dtype=dtype)
        return self.graph.add_node(
            "constant", (), {"value": array}, TensorType(array.dtype, array.shape), name="Const",
        )

    def zeros_like(self, like: Node) -> Node:
        if is_handle(like.type):
            return self.empty_list()
        return self.call("zeros_like", like)

    def empty_list(self) -> Node:
        """The zero gradient of a TensorArray: no element has a gradient yet."""
        return self.node("grad_list_new", (), {}, like_handle())

    def add(self, a: Node | None, b: Node | None) -> Node | None:
        """a + b where None is zero."""
        if a is None:
            return b
        if b is None:
            return a
        if is_handle(a.type):
            return self.node("grad_list_add", (a, b), {})
        return self.call("add", a, b)

    def cast_like(self, g: Node, like: Node) -> Node:
        """`g` in `like`'s dtype (a float32 source gets a float32 gradient)."""
        if not isinstance(g.type, TensorType) or g.type.dtype == like.type.dtype or is_handle(like.type):
            return g
        return self.node("cast", (g,), {"dtype": like.type.dtype})


def _same_type(g: Any, like: Any) -> bool:
    return (
        isinstance(g, Node) and isinstance(like, Node) and isinstance(g.type, TensorType)
        and g.type == like.type and g.type.is_fully_defined
    )


def like_handle() -> TensorType:
    return TensorType(np.dtype(object), ())


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
            inputs = (inputs[0], *_outer_inputs([attrs["true"], attrs["false"]]))
        elif node.op == "while":
            count = len(node.attrs["body"].inputs)
            attrs["cond"] = _clone_sub(target, node.attrs["cond"], env, node.attrs["cond"].inputs, recompute, ops)
            attrs["body"] = _clone_sub(target, node.attrs["body"], env, node.attrs["body"].inputs, recompute, ops)
            inputs = (*inputs[:count], *_outer_inputs([attrs["cond"], attrs["body"]]))
        owned = tuple(target.own(i) for i in inputs)
        op = node.op if ops is None else ops.get(node.op, node.op)
        env[node] = target.add_node(op, owned, attrs, node.type, node.origin or origin, name=node.name)
    return env


def _effect_only(node: Node) -> bool:
    """An effect whose result is no value (print, assign, assert): a recomputation skips it."""
    from runtime.ops.registry import OPS

    spec = OPS.get(node.op)
    return spec is not None and spec.effectful and is_handle(node.type)


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


def _outer_inputs(subgraphs: list[Graph]) -> list[Node]:
    seen: dict[Node, None] = {}
    for sub in subgraphs:
        for capture in sub.captures.values():
            seen.setdefault(capture.attrs["outer"], None)
    return list(seen)
