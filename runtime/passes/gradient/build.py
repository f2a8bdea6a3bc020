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

from runtime.ir.graph import Graph, Node
from runtime.ir.origin import Origin
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Span, Weak
from runtime.ops.graph_copy import clone_into
from runtime.ops.registry import get_op

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
            return self.empty_list(like)
        return self.call("zeros_like", like)

    def empty_list(self, handle: Node | None = None) -> Node:
        """The zero gradient of the TensorArray `handle`: no element has a gradient yet (the
        handle tells a backend that preallocates, XLA, the gradient's size and element shape)."""
        return self.node("grad_list_new", () if handle is None else (handle,), {}, like_handle())

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
