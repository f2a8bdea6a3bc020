"""Reverse-mode differentiation of a Graph: the gradient as more nodes of a graph.

`backprop` walks the nodes between the sources and the targets in reverse
order, applies each op's vector-Jacobian product (`rules_*`), and sums the
contributions each node receives. What it adds are ordinary typed nodes, so
the gradient is optimised, compiled and run like anything a trace records:

    y = np.tanh(x)              # forward node
    s = np.sum(y)               # target; seed: ones_like(s)
    # backward, added by backprop(em, [s], [None], [x]):
    g_y = reduce_grad(ones, y, s, kind="sum")
    g_x = sum_to(g_y * (1 - y * y), x)

Variables are sources by identity: every "read_variable" node of a
Variable (in the graph, or in a cond branch or loop body) contributes to
that Variable's gradient, which `Backprop.variables` returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime.ir.graph import Graph, Node
from runtime.ir.types import TensorType
from runtime.passes.gradient.build import Emitter, differentiable, is_float
from runtime.passes.gradient.errors import not_differentiable
from runtime.passes.gradient.rules_arrays import ARRAY_RULES, IndexGrad
from runtime.passes.gradient.rules_linalg import LINALG_RULES
from runtime.passes.gradient.rules_math import MATH_RULES, PIECEWISE_CONSTANT
from runtime.passes.gradient.rules_second_order import CONSTANT_HELPERS, SECOND_ORDER_RULES
from runtime.passes.gradient.rules_spectral import SPECTRAL_RULES, TAKES_COMPLEX_AS_IS
from runtime.passes.gradient.rules_updates import UPDATE_RULES

__all__ = ["Backprop", "backprop", "variable_of"]

_CONTROL = ("cond", "while")
RULES = {**MATH_RULES, **ARRAY_RULES, **LINALG_RULES, **SPECTRAL_RULES, **UPDATE_RULES, **SECOND_ORDER_RULES}
NO_GRADIENT = PIECEWISE_CONSTANT | CONSTANT_HELPERS


def variable_of(node: Node) -> Any:
    """The Variable a "read_variable" node reads (None once it was garbage-collected)."""
    return node.attrs["ref"]()


class Backprop:
    """One reverse sweep over `window`, the nodes of `graph` to differentiate through (default all).

    The window is a snapshot: gradient nodes added while sweeping (and
    captures a subgraph inserts near its top) are never swept.

    `grads` maps a node to its accumulated gradient (None: zero); a cond or
    while node's entry is a list, one slot per output. `variables` maps a
    Variable to the gradient of all its reads.
    """

    def __init__(self, em: Emitter, graph: Graph, window: Sequence[Node] | None = None) -> None:
        self.em = em
        self.graph = graph
        self.window = list(graph.nodes if window is None else window)
        self.grads: dict[Node, Any] = {}
        self.variables: dict[int, tuple[Any, Node]] = {}
        self.active: set[Node] = set()
        # accumulators this sweep made (or was given) that nothing else holds: added into in place
        self.owned: set[Node] = set()

    # -- accumulation ---------------------------------------------------------
    def accumulate(self, node: Node, g: Any) -> None:
        if g is None:
            return
        current = self.grads.get(node)
        if isinstance(g, IndexGrad):
            self.grads[node] = self._scatter(node, current, g)
            return
        if isinstance(current, IndexGrad):
            current = self._scatter(node, None, current)
        self.grads[node] = self.em.add(current, g)

    def _scatter(self, node: Node, current: Any, g: IndexGrad) -> Node:
        index = g.index
        if isinstance(current, IndexGrad):
            current = self._scatter(node, None, current)
        if current is None or current not in self.owned:
            fresh = self.em.node("index_grad", (g.g, *index.inputs), {"key": g.key()}, type_=node.type)
            self.owned.add(fresh)
            return fresh if current is None else self.em.add(current, fresh)
        added = self.em.node("index_add", (current, g.g, *index.inputs), {"key": g.key()}, type_=node.type)
        self.owned.add(added)
        return added

    def local(self, node: Node) -> Node:
        """`node` as the swept graph sees it: itself, or its capture when it comes from an enclosing graph."""
        return self.graph.captures.get(node, node)

    def materialized(self, node: Node) -> Node | None:
        node = self.local(node)
        g = self.grads.get(node)
        if isinstance(g, IndexGrad):
            g = self._scatter(node, None, g)
            self.grads[node] = g
        return g

    def add_variable(self, variable: Any, g: Node) -> None:
        key = id(variable)
        if key in self.variables:
            self.variables[key] = (variable, self.em.add(self.variables[key][1], g))
        else:
            self.variables[key] = (variable, g)

    # -- the sweep ------------------------------------------------------------
    def run(self, targets: Sequence[Node], seeds: Sequence[Node | None], sources: Sequence[Node]) -> None:
        """Propagate `seeds` (None: zero) from `targets` back to `sources` and the Variables read."""
        stop = {self.local(s) for s in sources}
        active = self._active(stop)
        needed = self._needed(targets, active)
        self.active = active
        for target, seed in zip(targets, seeds):
            if target in active and seed is not None:
                self.accumulate(target, seed)
        for node in reversed(self.window):
            if node not in needed:
                continue
            self._visit(node)

    def _active(self, sources: set[Node]) -> set[Node]:
        """Nodes whose value depends on a source or a Variable read, through float values."""
        active: set[Node] = set(sources)
        for node in self.window:
            if node in sources:
                active.add(node)
            elif node.op == "read_variable" and is_float(node.type):
                active.add(node)
            elif node.op in _CONTROL and _reads_variables(node):
                active.add(node)
            elif node.op == "getitem" and node.inputs[0] in active:
                if differentiable(node.type):
                    active.add(node)
            elif any(i in active for i in node.inputs) and _carries_gradient(node):
                active.add(node)
        return active

    def _needed(self, targets: Sequence[Node], active: set[Node]) -> set[Node]:
        needed = {t for t in targets if t in active}
        for node in reversed(self.window):
            if node in needed:
                needed.update(i for i in node.inputs if i in active)
        return needed

    def _visit(self, node: Node) -> None:
        op = node.op
        if op in ("input", "capture", "constant"):
            return
        if op == "read_variable":
            g = self.materialized(node)
            if g is not None:
                self.add_variable(variable_of(node), g)
            return
        if op == "getitem" and (node.inputs[0].op in _CONTROL or node.inputs[0].op == "py_function"):
            g = self.materialized(node)
            slots = self.grads.setdefault(node.inputs[0], [None] * len(node.inputs[0].type))
            slots[node.attrs["index"]] = self.em.add(slots[node.attrs["index"]], g)
            return
        if op in _CONTROL:
            from runtime.passes.gradient.rules_control import differentiate_control

            slots = self.grads.get(node) or [None] * len(node.type)
            for item, g in differentiate_control(self, node, slots):
                if isinstance(item, Node):
                    self.accumulate(item, g)
                else:
                    self.add_variable(item, g)
            return
        if op == "py_function":
            from runtime.passes.gradient.rules_python import differentiate_py_function

            g = self.grads.get(node) if node.attrs["multiple"] else self.materialized(node)
            if g is not None and (not node.attrs["multiple"] or any(s is not None for s in g)):
                for item, contribution in differentiate_py_function(self, node, g):
                    self.accumulate(item, self.em.cast_like(contribution, item))
            return
        g = self.materialized(node)
        if g is None:
            return
        rule = RULES.get(op)
        if rule is None:
            if op in NO_GRADIENT:
                return
            raise not_differentiable(node)
        # what the rule emits has the op's line as its origin: a backend that refuses one of its
        # nodes (XLA and a boolean mask) or a check that fails in it names the user's line
        asked_at = self.em.origin
        if node.origin is not None:
            self.em.origin = node.origin
        try:
            self._apply(rule, node, g)
        finally:
            self.em.origin = asked_at

    def _apply(self, rule: Any, node: Node, g: Node) -> None:
        conjugate = _conjugates(node, g)
        if conjugate:
            g = self.em.call("conjugate", g)
        for item, contribution in rule(self, node, g):
            if isinstance(item, Node) and differentiable(item.type):
                if conjugate:
                    contribution = self._conjugate(contribution)
                if not isinstance(contribution, IndexGrad) and is_float(item.type):
                    if _is_complex(contribution.type) and not _is_complex(item.type):
                        contribution = self.em.call("real", contribution)  # a real input gets the real part
                    contribution = self.em.cast_like(contribution, item)
                self.accumulate(item, contribution)

    def _conjugate(self, contribution: Any) -> Any:
        if isinstance(contribution, IndexGrad):
            return IndexGrad(self.em.call("conjugate", contribution.g), contribution.index)
        if _is_complex(contribution.type):
            return self.em.call("conjugate", contribution)
        return contribution


def _is_complex(type_: Any) -> bool:
    return isinstance(type_, TensorType) and type_.dtype.kind == "c"


def _conjugates(node: Node, g: Node) -> bool:
    """Whether `node`'s rule, written as a transpose (as for real numbers), needs conjugating around
    it to give TensorFlow's complex gradient (dL/dRe + i dL/dIm): for a holomorphic op f, g * conj(f')."""
    if node.op in TAKES_COMPLEX_AS_IS or node.op.startswith(("ta_", "grad_list")):
        return False
    return _is_complex(g.type) or any(_is_complex(i.type) for i in node.inputs)


def _carries_gradient(node: Node) -> bool:
    """Whether a gradient can flow through `node` (float or TensorArray results; not a piecewise-constant op)."""
    if node.op in NO_GRADIENT and not (node.op == "sign" and any(_is_complex(i.type) for i in node.inputs)):
        return False
    type_ = node.type
    if isinstance(type_, tuple):
        return any(differentiable(t) for t in type_)
    return differentiable(type_) or node.op == "py_function"


def _reads_variables(node: Node) -> bool:
    for value in node.attrs.values():
        if isinstance(value, Graph):
            for inner in value.nodes:
                if inner.op == "read_variable" and is_float(inner.type):
                    return True
                if inner.op in _CONTROL and _reads_variables(inner):
                    return True
    return False


def backprop(
    em: Emitter, graph: Graph, targets: Sequence[Node], seeds: Sequence[Node | None], sources: Sequence[Node],
    window: Sequence[Node] | None = None,
) -> Backprop:
    """One reverse sweep over `graph` (which holds the targets), emitting into `em.graph`.

    Only the nodes of `window` (default: all of `graph`'s) are differentiated
    through (what a tape recorded); the others are constants. Read `.grads` and `.variables`.
    """
    sweep = Backprop(em, graph, window)
    sweep.run(targets, seeds, sources)
    return sweep
