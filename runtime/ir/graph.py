"""Graph and Node: the staged program a trace records.

A `Graph` is an ordered list of `Node`s; each node is one op applied to
earlier nodes. Nodes are immutable; the graph owns their order, their names
(one namespace per graph) and the tensors captured from enclosing graphs.
Subgraphs (the branches of a cond, the body of a while) are Graphs whose
`parent` is the graph they are nested in: using an outer tensor inside one
captures it as an extra input.

    >>> g = Graph("double")
    >>> a = g.add_input(TensorType(np.int64, ()), "a")
    >>> add = g.add_node("add", (a, a), {}, TensorType(np.int64, ()))
    >>> g.set_outputs([add])
    >>> [(n.inputs_names, n.name) for n in g.as_graph_def().node]
    [([], 'a'), (['a', 'a'], 'add'), (['add'], 'Identity')]
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.names import Namespace
from runtime.ir.opcodes import CAPTURE, COND, STRUCTURAL, WHILE
from runtime.ir.origin import Origin, user_origin
from runtime.ir.types import TensorType

__all__ = ["Node", "Graph", "GraphDef", "NodeDef", "leaked_error"]


@dataclass(frozen=True, slots=True, eq=False, init=False)
class Node:
    """One op applied to input nodes.

    `op` names an entry of the op registry (`runtime.ops.registry`), or one of
    the structural opcodes: "input" (a graph argument), "capture" (an input
    that stands for a tensor of an enclosing graph; `attrs["outer"]` is that
    node), "constant" (`attrs["value"]` is the NumPy value). `type` is a
    TensorType, or a tuple of them for multi-output ops (cond, while), whose
    outputs are read with "getitem" nodes. Nodes compare by identity.
    """

    name: str
    op: str
    inputs: tuple[Node, ...]
    attrs: dict[str, Any]
    type: TensorType | tuple[TensorType, ...]
    origin: Origin | None = None

    def __init__(
        self, name: str, op: str, inputs: tuple[Node, ...], attrs: dict[str, Any],
        type: TensorType | tuple[TensorType, ...], origin: Origin | None = None,
    ) -> None:
        # The slots' own setters: what a frozen dataclass's __init__ does through
        # object.__setattr__, in half the time (a trace makes a node per op).
        _set_name(self, name)
        _set_op(self, op)
        _set_inputs(self, inputs)
        _set_attrs(self, attrs)
        _set_type(self, type)
        _set_origin(self, origin)

    @property
    def inputs_names(self) -> list[str]:
        return [n.name for n in self.inputs]

    def __repr__(self) -> str:
        args = ", ".join(n.name for n in self.inputs)
        type_str = (
            str(self.type) if isinstance(self.type, TensorType)
            else "(" + ", ".join(str(t) for t in self.type) + ")"
        )
        return f"{self.name}: {type_str} = {self.op}({args})"


_set_name, _set_op, _set_inputs, _set_attrs, _set_type, _set_origin = (
    vars(Node)[field].__set__ for field in ("name", "op", "inputs", "attrs", "type", "origin")
)


_GRAPH_RESERVED = frozenset({"np"})  # node names never shadow the NumPy module of generated code


@dataclass
class NodeDef:
    """One entry of `GraphDef.node`, in the shape of TensorFlow's GraphDef."""

    name: str
    op: str
    input: list[str]


@dataclass
class GraphDef:
    node: list[NodeDef] = field(default_factory=list)


class Graph:
    """An ordered, named collection of nodes with inputs and outputs."""

    def __init__(self, name: str = "graph", parent: Graph | None = None) -> None:
        self.name = name
        self.parent = parent
        self.nodes: list[Node] = []
        self.inputs: list[Node] = []
        self.outputs: list[Node] = []
        self.captures: dict[Node, Node] = {}  # outer node -> its "capture" node here
        self.namespace = Namespace(_GRAPH_RESERVED)
        self.finished = False
        # an error raised while tracing that the user's own try/with may swallow; the trace fails with it
        self.refused: Exception | None = None
        # staged control flow traced inside the user's try/with (runtime/operators/within.py), on the top graph
        self.traced_in_with: list = []
        self._ids: set[int] = set()  # id() of every node of `nodes`: `_holds` in O(1)
        self._users: dict[int, list[Node]] = {}  # id(node) -> the nodes using it (see `users`)
        self._users_counted = 0  # len(nodes) when `_users` was built

    # -- building -------------------------------------------------------
    def add_node(
        self,
        op: str,
        inputs: tuple[Node, ...],
        attrs: dict[str, Any],
        type: TensorType | tuple[TensorType, ...],
        origin: Origin | None = None,
        name: str | None = None,
    ) -> Node:
        """Append a node; inputs from enclosing graphs are captured first."""
        if self.finished:
            raise StagingError(f"graph {self.name!r} is finished; no more nodes can be added")
        ids = self._ids
        inputs = tuple([n if id(n) in ids else self.own(n) for n in inputs])
        node = Node(self.namespace.create(name or op), op, inputs, attrs, type, origin)
        self.nodes.append(node)
        self._ids.add(id(node))
        return node

    def add_input(self, type: TensorType, name: str = "input", origin: Origin | None = None) -> Node:
        node = Node(self.namespace.create(name), "input", (), {}, type, origin)
        self.nodes.append(node)
        self._ids.add(id(node))
        self.inputs.append(node)
        return node

    def name_hint(self, node: Node, hint: str) -> None:
        """Name `node` after the user's variable (`i`, not `add`) where it still has its op's name.

        For values the user names in a way no op sees (a for loop's target):
        the generated code then shows the user's name. Only a node of this
        graph that is no input, capture or constant is renamed."""
        if id(node) not in self._ids or node.op in STRUCTURAL or not hint.isidentifier():
            return
        if node.name == node.op or node.name.startswith(node.op + "_") and node.name[len(node.op) + 1 :].isdigit():
            _set_name(node, self.namespace.create(hint))

    def own(self, node: Node) -> Node:
        """`node` as seen from this graph: itself, or a capture of an outer node."""
        if id(node) in self._ids:
            return node
        if node in self.captures:
            return self.captures[node]
        owner = self.owner_of(node)
        if owner is self:
            return node
        if owner is None:
            used = user_origin()
            raise leaked_error(
                node, "belongs to another trace, or to a staged if or loop that has finished, and leaked out of it",
                f" It is used at {used}." if used is not None else "",
            )
        outer = self.parent.own(node) if self.parent is not None else node
        capture = Node(self.namespace.create(node.name), "capture", (), {"outer": outer}, node.type)
        self.nodes.insert(len(self.inputs) + len(self.captures), capture)
        self._ids.add(id(capture))
        self.captures[node] = capture
        return capture

    def owner_of(self, node: Node) -> Graph | None:
        """The graph in this graph's chain of parents that holds `node`, if any."""
        graph: Graph | None = self
        while graph is not None:
            if graph._holds(node):
                return graph
            graph = graph.parent
        return None

    def _holds(self, node: Node) -> bool:
        if id(node) in self._ids:
            return True  # nodes are only ever added, so a hit stays true
        if len(self._ids) != len(self.nodes):  # `nodes` was changed directly: recount
            self._ids = {id(n) for n in self.nodes}
        return id(node) in self._ids

    def set_outputs(self, outputs: list[Node]) -> None:
        self.outputs = [self.own(n) for n in outputs]

    def finish(self) -> Graph:
        self.finished = True
        return self

    def without(self, dropped: set[Node]) -> Graph:
        """A finished graph with this one's nodes but `dropped`: the same Node objects, shared.

        Nodes are immutable, so dropping what nothing uses needs no copy; a
        kept cond/while node keeps its subgraphs. For top-level graphs whose
        `dropped` nodes no kept node, output or subgraph capture refers to
        (what dead-code elimination finds).
        """
        assert self.parent is None, f"only a top-level graph is pruned in place of a copy\n{self}"
        kept = [node for node in self.nodes if node not in dropped]
        graph = Graph(self.name)
        graph.nodes = kept
        graph.inputs = list(self.inputs)
        graph.outputs = list(self.outputs)
        graph.namespace = Namespace(("np", *(node.name for node in kept)))
        graph._ids = {id(node) for node in kept}
        return graph.finish()

    # -- reading --------------------------------------------------------
    def as_graph_def(self) -> GraphDef:
        """Nodes with names, ops and input names; outputs appear as Identity nodes."""
        graph_def = GraphDef()
        for node in self.nodes:
            graph_def.node.append(NodeDef(node.name, _op_display_name(node.op), node.inputs_names))
        names = Namespace(tuple(n.name for n in self.nodes))
        for output in self.outputs:
            graph_def.node.append(NodeDef(names.create("Identity"), "Identity", [output.name]))
        return graph_def

    def users(self, node: Node) -> list[Node]:
        """The nodes of this graph that take `node` as an input, each once, in graph order.

        The index is built on first use and rebuilt only when nodes were added
        since, so a pass that asks about every node pays once."""
        if self._users_counted != len(self.nodes):
            users: dict[int, list[Node]] = {}
            for user in self.nodes:
                for source in user.inputs:
                    listed = users.setdefault(id(source), [])
                    if not listed or listed[-1] is not user:  # a node using `source` twice is one user
                        listed.append(user)
            self._users, self._users_counted = users, len(self.nodes)
        return list(self._users.get(id(node), ()))

    def verify(self, ops: Container[str] | None = None) -> Graph:
        """Check the IR's invariants; an AssertionError printing the graph names the first broken one.

        Names are unique; every input is defined before its use in this graph;
        a capture refers to a node of an enclosing graph; a cond's predicate and
        a while's test are `bool[]` scalars; subgraphs hold too (recursively).
        With `ops` (the op registry), every other opcode must be one of them.
        """
        seen: set[int] = set()
        names: set[str] = set()
        for node in self.nodes:
            problem = _problem(self, node, seen, names, ops)
            if problem is not None:
                raise AssertionError(f"node {node!r} {problem}\n{self}")
            seen.add(id(node))
            names.add(node.name)
            for value in node.attrs.values():
                if isinstance(value, Graph):
                    value.verify(ops)
        if any(id(o) not in seen for o in self.outputs):
            raise AssertionError(f"an output of graph {self.name!r} is not one of its nodes\n{self}")
        return self

    def __str__(self) -> str:
        args = ", ".join(f"{n.name}: {n.type}" for n in self.inputs)
        lines = [f"graph {self.name}({args}):"]
        lines += [f"  {node!r}" for node in self.nodes if node.op != "input"]
        lines.append("  return " + ", ".join(n.name for n in self.outputs))
        return "\n".join(lines)


_BOOL_SCALAR = TensorType(np.bool_, ())


def _problem(graph: Graph, node: Node, seen: set[int], names: set[str], ops: Container[str] | None) -> str | None:
    """What `node` breaks of `Graph.verify`'s invariants, or None."""
    if node.name in names:
        return "has a duplicate name"
    if ops is not None and node.op not in ops and node.op not in STRUCTURAL:
        return f"uses the unknown op {node.op!r}"
    if any(id(i) not in seen for i in node.inputs):
        return "uses an input that is not defined before it in this graph"
    if node.op == CAPTURE and (graph.parent is None or graph.parent.owner_of(node.attrs["outer"]) is None):
        return "captures a node that no enclosing graph holds"
    if node.op == COND and node.inputs[0].type != _BOOL_SCALAR:
        return f"has the predicate {node.inputs[0].type}, not bool[]"
    if node.op == WHILE:
        test = node.attrs["cond"].outputs
        if len(test) != 1 or test[0].type != _BOOL_SCALAR:
            return f"has a test of type {', '.join(str(t.type) for t in test)}, not bool[]"
    return None


def _op_display_name(op: str) -> str:
    return {"input": "Placeholder", "constant": "Const", "capture": "Placeholder"}.get(op, op)


def leaked_error(node: Node, how: str, used: str = "") -> TypeError:
    """The TypeError for a Tensor used after its trace (or staged if or loop) ended; `how` says so,
    `used` (a sentence) where it is used now."""
    made = f", made at {node.origin}," if node.origin is not None else ""
    return TypeError(
        f"the tensor {node.name!r} ({node.type}){made} {how} (for example through a global, an "
        f"attribute, or a nonlocal that a nested function sets inside a staged if or loop).{used} Return "
        f"it from the function that computed it instead of storing it."
    )
