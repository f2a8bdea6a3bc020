"""Graph -> the source of one Python function over NumPy.

The code reads like what a person would write (the torch.fx habit): one
assignment per node named after the node, operators printed as operators,
scalar constants inlined as typed literals (`np.int64(1)`, so NumPy's
promotion rules see the same strong types the graph was inferred with),
array constants and helper callables bound as named globals, `cond` as
`if/else` and `while` as `while`:

    def collatz(n):
        n_1 = n
        steps = np.int64(0)
        while n_1 != 1:
            remainder = n_1 % 2
            equal = remainder == 0
            if equal:
                n_2 = n_1 // 2
            else:
                multiply = 3 * n_1
                n_2 = multiply + 1
            add = steps + 1
            n_1, steps = n_2, add
        return [steps]

Subgraphs are emitted inline, so their nodes share the function's namespace:
a capture is simply the enclosing node's name.

A loop that counts `i` from 0 to a constant (`runtime.backends.numpy.counted_loops`) is
printed as a person would write it once they know it: a TensorArray write at
`i` that cannot fail is a list store (`states[i] = tanh`), a counter used only
as an index starts as a Python int, and a transposed array it reads row by
row is made contiguous before it (`runtime.backends.numpy.row_layout`). Values are the same.
"""

from __future__ import annotations

import builtins
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from runtime.backends.numpy.counted_loops import counters, in_bounds_writes, int_counters
from runtime.backends.numpy.row_layout import walked_views
from runtime.ir.graph import Graph, Node
from runtime.ir.names import Namespace
from runtime.ir.opcodes import SUBGRAPH_FIELDS
from runtime.ir.origin import Origin
from runtime.ir.types import TensorType
from runtime.ops.registry import get_op

__all__ = ["GeneratedSource", "generate_source", "scalar_literal"]

_INDENT = "    "
_SUFFIX = re.compile(r"_\d+$")


@dataclass
class GeneratedSource:
    """The function's source, the globals it needs, and where each line came from."""

    name: str
    params: list[str]
    source: str
    globals: dict[str, Any]
    line_origins: dict[int, Origin] = field(default_factory=dict)
    body: list[str] = field(default_factory=list)  # the lines between the `def` and the return
    outputs: list[str] = field(default_factory=list)  # the returned expressions, in order


def scalar_literal(value: Any) -> str | None:
    """A typed literal for a 0-d numeric value (`np.float32(0.5)`), or None if there is none."""
    array = np.asarray(value)
    if array.ndim != 0 or array.dtype.kind not in "biuf" or array.dtype.byteorder == ">":
        return None
    item = array.item()
    if array.dtype.kind == "b":
        return "np.True_" if item else "np.False_"
    if isinstance(item, float):
        if not math.isfinite(item) or np.asarray(item, array.dtype) != array:
            return None
        return f"np.{array.dtype.name}({item!r})"
    return f"np.{array.dtype.name}({item})"


def _is_literal(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, tuple):
        return all(_is_literal(v) for v in value)
    return False


def _users(graph: Graph) -> dict[Node, list[Node]]:
    users: dict[Node, list[Node]] = defaultdict(list)
    for node in graph.nodes:
        for inp in node.inputs:
            users[inp].append(node)
    for out in graph.outputs:
        users[out].append(out)
    return users


# Names the generated code must not rebind: the builtins it may call, and `np`. A frozenset
# made once, which each compile's Namespace shares rather than copies.
_RESERVED = frozenset((*vars(builtins), "np"))


class _Emitter:
    """Walks a graph and its subgraphs, writing lines into one function body."""

    def __init__(self, graph: Graph) -> None:
        self.ns = Namespace(_RESERVED)
        self.names: dict[Node, str] = {}
        self.globals: dict[str, Any] = {"np": np}
        self._bound: dict[int, str] = {}
        self.lines: list[str] = []
        self.origins: dict[int, Origin] = {}
        self.contiguous: set[Node] = set()  # views a loop reads row by row (runtime.backends.numpy.row_layout)
        self.stores: set[Node] = set()  # TensorArray writes that are list stores (runtime.backends.numpy.counted_loops)
        self.int_counters: set[Node] = set()  # loop counters that count in Python ints (the same)
        for node in graph.nodes:
            if node.op not in ("capture", "constant"):
                self.names[node] = self.ns.create(node.name)

    # -- names ----------------------------------------------------------
    def name_of(self, node: Node) -> str:
        """The node's Python name; a subgraph node named `n_1` becomes `n_2` rather than `n_1_1`."""
        if node not in self.names:
            self.names[node] = self.ns.create(_SUFFIX.sub("", node.name) or node.name)
        return self.names[node]

    def bind(self, hint: str, value: Any) -> str:
        """A global name for `value` (one name per object)."""
        key = id(value)
        if key not in self._bound:
            name = self.ns.create(hint)
            self.globals[name] = value
            self._bound[key] = name
        return self._bound[key]

    def write(self, indent: int, text: str, origin: Origin | None = None) -> None:
        self.lines.append(_INDENT * indent + text)
        if origin is not None:
            self.origins[len(self.lines)] = origin

    # -- graphs ---------------------------------------------------------
    def emit_graph(self, graph: Graph, indent: int, users: dict[Node, list[Node]] | None = None) -> int:
        """Emit every node of `graph` (`users`: its users, when known); returns how many lines were written."""
        start = len(self.lines)
        users = _users(graph) if users is None else users
        aliases = self._control_outputs(graph, users)
        loops = counters(graph)
        if loops:
            self.contiguous.update(walked_views(graph, loops))
            self.stores.update(in_bounds_writes(graph, loops))
            self.int_counters.update(int_counters(graph, loops, self.stores))
        for node in graph.nodes:
            self.emit_node(node, indent, users, aliases)
        return len(self.lines) - start

    def _control_outputs(self, graph: Graph, users) -> dict[Node, dict[int, str]]:
        """Names of each cond/while output: the first getitem reading it names it."""
        outputs: dict[Node, dict[int, str]] = {}
        for node in graph.nodes:
            if node.op not in SUBGRAPH_FIELDS:
                continue
            names: dict[int, str] = {}
            for user in users.get(node, ()):
                if user.op == "getitem" and user.inputs[0] is node:
                    index = user.attrs["index"]
                    if index in names:
                        self.names[user] = names[index]
                    else:
                        names[index] = self.name_of(user)
            outputs[node] = names
        return outputs

    def emit_node(self, node: Node, indent: int, users, aliases) -> None:
        op = node.op
        if op == "input" and node in self.names:
            return
        if op == "capture":
            self.names[node] = self.names[node.attrs["outer"]]
        elif op == "constant":
            self._constant(node)
        elif op == "cond":
            self._cond(node, indent, aliases[node])
        elif op == "while":
            self._while(node, indent, aliases[node], users)
        elif op == "getitem" and node.inputs[0].op in SUBGRAPH_FIELDS:
            return
        else:
            self._call(node, indent, users)

    def _constant(self, node: Node) -> None:
        value = node.attrs["value"]
        literal = scalar_literal(value)
        self.names[node] = literal if literal is not None else self.bind(node.name, value)

    def _call(self, node: Node, indent: int, users) -> None:
        op = get_op(node.op)
        args = [self.names[i] for i in node.inputs]
        if node in self.stores and self._sole_user(node.inputs[0], node, users):
            self.write(indent, f"{args[0]}[{args[1]}] = {args[2]}", node.origin)
            self.names[node] = args[0]  # the same list, changed in place
            return
        if op.inplace and args and not self._sole_user(node.inputs[0], node, users):
            args[0] = f"{args[0]}.copy()"
        expr = op.emit(args, node.attrs) if op.emit is not None else None
        if expr is None:
            expr = self._impl_call(node, op.impl, args)
        if node in self.contiguous:
            expr = f"np.ascontiguousarray({expr})"
        name = self.name_of(node)
        statement = op.effectful and not users.get(node) and _is_unit(node.type)
        self.write(indent, expr if statement else f"{name} = {expr}", node.origin)

    def carried(self, node: Node) -> str:
        """A subgraph result as it leaves the subgraph.

        A handle (object dtype) taken from an enclosing graph is copied, so that
        in-place writes on the cond/while output cannot reach the outer value.
        """
        name = self.names[node]
        shared = node.op in ("capture", "constant") and _is_unit(node.type)
        return f"{name}.copy()" if shared else name

    @staticmethod
    def _sole_user(value: Node, node: Node, users) -> bool:
        return value.op not in ("capture", "constant") and users.get(value) == [node]

    def _impl_call(self, node: Node, impl: Any, args: list[str]) -> str:
        parts = list(args)
        for key, value in node.attrs.items():
            if _is_literal(value):
                parts.append(f"{key}={value!r}")
            else:
                parts.append(f"{key}={self.bind(key, value)}")
        hint = getattr(impl, "__name__", "")
        hint = hint if hint.isidentifier() and hint != "<lambda>" else node.op
        return f"{self.bind(hint, impl)}({', '.join(parts)})"

    # -- control flow ---------------------------------------------------
    def _cond(self, node: Node, indent: int, outputs: dict[int, str]) -> None:
        self.write(indent, f"if {self.names[node.inputs[0]]}:", node.origin)
        self._branch(node.attrs["true"], indent + 1, outputs)
        self.write(indent, "else:")
        self._branch(node.attrs["false"], indent + 1, outputs)

    def _branch(self, graph: Graph, indent: int, outputs: dict[int, str]) -> None:
        users = self._name_results(graph, outputs)
        written = self.emit_graph(graph, indent, users)
        for index, name in sorted(outputs.items()):
            value = self.carried(graph.outputs[index])
            if value != name:
                self.write(indent, f"{name} = {value}")
                written += 1
        if not written:
            self.write(indent, "pass")

    def _name_results(self, graph: Graph, outputs: dict[int, str]) -> dict[Node, list[Node]]:
        """A branch result computed only to be returned is assigned to the cond's output directly.

        Returns the branch's users (emit_graph reads them too).
        """
        users = _users(graph)
        for index, name in outputs.items():
            out = graph.outputs[index]
            if out.op in ("input", "capture", "constant") or out in self.names:
                continue
            if users.get(out) == [out]:
                self.names[out] = name
        return users

    def _while(self, node: Node, indent: int, outputs: dict[int, str], users) -> None:
        cond, body = node.attrs["cond"], node.attrs["body"]
        limit = node.attrs.get("maximum_iterations")
        loop_vars = []
        for index, (init, inp) in enumerate(zip(node.inputs, body.inputs)):
            name = outputs.get(index) or self.ns.create(inp.name)
            loop_vars.append(name)
            self.names[inp] = self.names[cond.inputs[index]] = name
            value = "0" if inp in self.int_counters else self.names[init]
            if inp.type.dtype == object and not self._sole_user(init, node, users):
                value += ".copy()"
            self.write(indent, f"{name} = {value}", node.origin)
        counter = self.ns.create("iterations") if limit is not None else None
        if counter is not None:
            self.write(indent, f"{counter} = 0")
        test = self._inline_test(cond)
        if test is not None:
            head = test if counter is None else f"{counter} < {limit} and {test}"
            self.write(indent, f"while {head}:", node.origin)
        else:
            self.write(indent, "while True:", node.origin)
            if counter is not None:
                self.write(indent + 1, f"if {counter} >= {limit}:")
                self.write(indent + 2, "break")
            self.emit_graph(cond, indent + 1)
            self.write(indent + 1, f"if not {self.names[cond.outputs[0]]}:")
            self.write(indent + 2, "break")
        start = len(self.lines)
        if counter is not None:
            self.write(indent + 1, f"{counter} += 1")
        self.emit_graph(body, indent + 1)
        values = [self.carried(out) for out in body.outputs]
        pairs = [(t, v) for t, v in zip(loop_vars, values) if t != v]
        if pairs:
            left = ", ".join(t for t, _ in pairs)
            right = ", ".join(v for _, v in pairs)
            self.write(indent + 1, f"{left} = {right}")
        if len(self.lines) == start:
            self.write(indent + 1, "pass")

    def _inline_test(self, cond: Graph) -> str | None:
        """The loop test as one expression when the cond graph is a single op (or none)."""
        work = [n for n in cond.nodes if n.op not in ("input", "capture", "constant")]
        for node in cond.nodes:
            if node.op in ("capture", "constant"):
                self.emit_node(node, 0, {}, {})
        out = cond.outputs[0]
        if not work:
            return self.names[out] if out.op != "constant" else str(bool(out.attrs["value"]))
        if len(work) != 1 or work[0] is not out or out.op in SUBGRAPH_FIELDS:
            return None
        op = get_op(out.op)
        if op.emit is None or op.effectful:
            return None
        return op.emit([self.names[i] for i in out.inputs], out.attrs)


def _is_unit(type_: Any) -> bool:
    return isinstance(type_, TensorType) and type_.dtype == object


def _output(emitter: _Emitter, node: Node) -> str:
    """A Variable's value leaves the graph as a copy, so changing it cannot change the Variable."""
    name = emitter.names[node]
    return f"{name}.copy()" if node.op == "read_variable" else name


def generate_source(graph: Graph, name: str | None = None) -> GeneratedSource:
    """The Python source of `graph` as one function and the globals it reads."""
    emitter = _Emitter(graph)
    params = [emitter.names[n] for n in graph.inputs]
    fn_name = emitter.ns.create(name or graph.name)
    emitter.write(0, f"def {fn_name}({', '.join(params)}):")
    emitter.emit_graph(graph, 1)
    outputs = [_output(emitter, o) for o in graph.outputs]
    body = emitter.lines[1:]
    emitter.write(1, "return [" + ", ".join(outputs) + "]")
    source = "\n".join(emitter.lines) + "\n"
    return GeneratedSource(fn_name, params, source, emitter.globals, emitter.origins, body, outputs)
