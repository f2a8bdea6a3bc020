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

import keyword
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from runtime.errors import StagingError
from runtime.origin import Origin, user_origin
from runtime.types import TensorType

__all__ = ["Node", "Graph", "GraphDef", "NodeDef", "Namespace", "leaked_error"]


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


class Namespace:
    """Mints unique, valid Python identifiers from hints: "x", "x_1", "x_2"."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        # kept apart from the names minted: a frozenset (codegen's builtins) is shared, not copied
        self._reserved = reserved if isinstance(reserved, frozenset) else frozenset(reserved)
        self._used: set[str] = set()
        self._next: dict[str, int] = {}  # base -> first counter worth trying (keeps minting O(1))

    def create(self, hint: str) -> str:
        if hint.isascii() and hint.isidentifier():
            base = hint  # the common case: already a name, nothing to replace
        else:
            base = re.sub(r"\W", "_", hint or "t")
            if not base or base[0].isdigit():
                base = "t_" + base
        if keyword.iskeyword(base):
            base += "_"
        used, reserved = self._used, self._reserved
        if base not in used and base not in reserved:
            used.add(base)
            return base
        counter = self._next.get(base, 1)
        name = f"{base}_{counter}"
        while name in used or name in reserved:
            counter += 1
            name = f"{base}_{counter}"
        self._next[base] = counter + 1
        used.add(name)
        return name


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

    def to_dot(self) -> str:
        """Graphviz DOT text of this graph (see `runtime.dot`)."""
        from runtime.dot import to_dot

        return to_dot(self)

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of the graph; None (text fallback) without Graphviz."""
        import subprocess

        from runtime.dot import dot_available, render

        if not dot_available():
            return None
        try:
            return render(self.to_dot(), "svg").decode("utf-8")
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            return None  # a picture is a nicety: fall back to the text repr

    def to_source(self) -> str:
        """The Python source the compiler generates for this graph (see `runtime.compile`)."""
        from runtime.compile import to_source

        return to_source(self)

    def verify(self) -> Graph:
        """Lint: known ops, inputs defined before use, unique names; recurses into subgraphs."""
        from runtime.ops.registry import OPS

        seen: set[int] = set()
        names: set[str] = set()
        for node in self.nodes:
            problem = None
            if node.name in names:
                problem = "has a duplicate name"
            elif node.op not in OPS and node.op not in ("input", "capture", "constant"):
                problem = f"uses the unknown op {node.op!r}"
            elif any(id(i) not in seen for i in node.inputs):
                problem = "uses an input that is not defined before it in this graph"
            elif node.op == "capture" and (
                self.parent is None or self.parent.owner_of(node.attrs["outer"]) is None
            ):
                problem = "captures a node that no enclosing graph holds"
            if problem is not None:
                raise AssertionError(f"node {node!r} {problem}\n{self}")
            seen.add(id(node))
            names.add(node.name)
            for value in node.attrs.values():
                if isinstance(value, Graph):
                    value.verify()
        if any(id(o) not in seen for o in self.outputs):
            raise AssertionError(f"an output of graph {self.name!r} is not one of its nodes\n{self}")
        return self

    def __str__(self) -> str:
        args = ", ".join(f"{n.name}: {n.type}" for n in self.inputs)
        lines = [f"graph {self.name}({args}):"]
        lines += [f"  {node!r}" for node in self.nodes if node.op != "input"]
        lines.append("  return " + ", ".join(n.name for n in self.outputs))
        return "\n".join(lines)


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
