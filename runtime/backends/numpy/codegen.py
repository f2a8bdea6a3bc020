"""Graph -> the source of one Python function over NumPy.

The code reads like what a person would write: the user's names for the
values their variables hold, operators printed as operators, a value used once
on the line that made it written inside its use (`runtime.backends.numpy.inlining`),
scalar constants inlined as typed literals (`np.int64(1)`, so NumPy's
promotion rules see the same strong types the graph was inferred with),
array constants and helper callables bound as named globals, `cond` as
`if/else`, `while` as `while`, and a comment naming the user's file, line and
source before the code of each line:

    def collatz(n):
        # collatz.py:11  steps = np.int64(0)
        steps = np.int64(0)
        # collatz.py:12  while n != 1:
        while n != 1:
            # collatz.py:13  n = n // 2 if n % 2 == 0 else 3 * n + 1
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            # collatz.py:14  steps += 1
            steps = steps + 1
        return [steps]

A loop variable keeps one name from its initial value to the loop's output
where no value could tell (`runtime.backends.numpy.loop_names`). Names are
minted in the order the code reads, so numbers (`x_1`) appear in order.
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
import functools
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from runtime.backends.numpy.control_code import SILENT as _SILENT
from runtime.backends.numpy.control_code import ControlFlowCode, users_of
from runtime.backends.numpy.counted_loops import counters, in_bounds_writes, int_counters
from runtime.backends.numpy.inlining import (
    Expr,
    fill,
    inlined,
    placeholder,
    substitute,
    template_of,
)
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


# Names the generated code must not rebind: the builtins it may call, and `np`. A frozenset
# made once, which each compile's Namespace shares rather than copies.
_RESERVED = frozenset((*vars(builtins), "np"))


class _Emitter(ControlFlowCode):
    """Walks a graph and its subgraphs, writing lines into one function body."""

    def __init__(self, graph: Graph) -> None:
        self.ns = Namespace(_RESERVED)
        self.names: dict[Node, str] = {}  # minted in the order the code reads (`name_of`)
        self.same: dict[Node, Node] = {}  # node -> the node whose name it shares (runtime.backends.numpy.loop_names)
        self.hints: dict[Node, str] = {}  # node -> the user's name for it, where the node's own is an op's
        self.inline: dict[Node, Node] = {}  # node -> the user it is written into (runtime.backends.numpy.inlining)
        self.globals: dict[str, Any] = {"np": np}
        self._bound: dict[int, str] = {}
        self.lines: list[str] = []
        self.origins: dict[int, Origin] = {}
        self._commented: tuple[str, int] | None = None  # the user line the last comment named
        self.functions: list[tuple[list[str], dict[int, Origin]]] = []  # deep branches (control_code)
        self.contiguous: set[Node] = set()  # views a loop reads row by row (runtime.backends.numpy.row_layout)
        self.stores: set[Node] = set()  # TensorArray writes that are list stores (runtime.backends.numpy.counted_loops)
        self.int_counters: set[Node] = set()  # loop counters that count in Python ints (the same)
        for node in graph.inputs:
            self.names[node] = self.ns.create(node.name)

    # -- names ----------------------------------------------------------
    def name_of(self, node: Node) -> str:
        """The node's Python name, minted on first use: the name it shares, the user's, or its own
        without a number (a subgraph node named `n_1` becomes `n_2` rather than `n_1_1`)."""
        name = self.names.get(node)
        if name is None:
            shared = self.same.get(node)
            if shared is not None:
                name = self.name_of(shared)
            else:
                hint = self.hints.get(node) or _SUFFIX.sub("", node.name) or node.name
                name = self.ns.create(hint)
            self.names[node] = name
        return name

    def share(self, node: Node, other: Node) -> None:
        """`node` is written under `other`'s name."""
        while other in self.same:
            other = self.same[other]
        if node is not other and node not in self.names:
            self.same[node] = other

    def bind(self, hint: str, value: Any) -> str:
        """A global name for `value` (one name per object)."""
        key = id(value)
        if key not in self._bound:
            name = self.ns.create(hint)
            self.globals[name] = value
            self._bound[key] = name
        return self._bound[key]

    def write(self, indent: int, text: str, origin: Origin | None = None) -> None:
        """One line; a line from a user line other than the last one commented gets a comment first."""
        if origin is not None:
            key = (origin.file, origin.line)
            if key != self._commented:
                self._commented = key
                self.lines.append(_INDENT * indent + _comment(origin))
        self.lines.append(_INDENT * indent + text)
        if origin is not None:
            self.origins[len(self.lines)] = origin

    # -- graphs ---------------------------------------------------------
    def emit_graph(self, graph: Graph, indent: int, users: dict[Node, list[Node]] | None = None) -> int:
        """Emit every node of `graph` (`users`: its users, when known); returns how many lines were written."""
        start = len(self.lines)
        users = users_of(graph) if users is None else users
        loops = counters(graph)
        if loops:
            self.contiguous.update(walked_views(graph, loops))
            self.stores.update(in_bounds_writes(graph, loops))
            self.int_counters.update(int_counters(graph, loops, self.stores))
        for node in graph.nodes:
            if node.op == "while":
                self._plan_loop(node, users)
        self.inline.update(inlined(graph, users, self._accepts))
        for node in graph.nodes:
            self.emit_node(node, indent, users)
        return len(self.lines) - start

    def _accepts(self, child: Node, user: Node) -> bool:
        """Whether `user` is printed as an expression (or an `if`) that can take `child` inline."""
        if user.op == "cond":
            return user.inputs[0] is child
        if user.op in SUBGRAPH_FIELDS or user.op in _SILENT or user in self.stores:
            return False
        if user.op == "getitem" and user.inputs[0].op in SUBGRAPH_FIELDS:
            return False
        op = get_op(user.op)
        return not op.inplace

    def emit_node(self, node: Node, indent: int, users) -> None:
        op = node.op
        if op == "input" or node in self.inline:
            return
        if op == "capture":
            self.names[node] = self.name_of(node.attrs["outer"])
        elif op == "constant":
            self._constant(node)
        elif op == "cond":
            self._cond(node, indent, users)
        elif op == "while":
            self._while(node, indent, users)
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
        if node in self.stores and self._sole_user(node.inputs[0], node, users):
            args = [self.name_of(i) for i in node.inputs]
            self.write(indent, f"{args[0]}[{args[1]}] = {args[2]}", node.origin)
            self.names[node] = args[0]  # the same list, changed in place
            return
        expr = self._expression_or_statements(node, indent, users)
        statement = op.effectful and not users.get(node) and _is_unit(node.type)
        self.write(indent, expr.text if statement else f"{self.name_of(node)} = {expr.text}", node.origin)

    def _expression_or_statements(self, node: Node, indent: int, users) -> Expr:
        """`node`'s expression with its inlined operands written in; where they cannot be (a
        multi-line template), the operands become statements of their own first."""
        expr = self._expression(node, users, operand=False)
        if expr is None:
            tree = [n for n in self.inline if self._root(n) is node]
            for inner in sorted(tree, key=self._order_key(node)):
                del self.inline[inner]
            for inner in sorted(tree, key=self._order_key(node)):
                self._call(inner, indent, users)
            expr = self._expression(node, users, operand=False)
        assert expr is not None
        return expr

    def _root(self, node: Node) -> Node:
        while node in self.inline:
            node = self.inline[node]
        return node

    @staticmethod
    def _order_key(node: Node):
        order: dict[Node, int] = {}

        def visit(n: Node) -> None:
            if n in order:
                return
            for i in n.inputs:
                visit(i)
            order[n] = len(order)

        visit(node)
        return order.__getitem__

    def _expression(self, node: Node, users, operand: bool) -> Expr | None:
        """The node's value as one expression (None where an inlined operand cannot be written in)."""
        op = get_op(node.op)
        operands: list[Expr | str] = []
        for inp in node.inputs:
            if self.inline.get(inp) is node:
                part = self._expression(inp, users, operand=True)
                if part is None:
                    return None
                operands.append(part)
            else:
                operands.append(self.name_of(inp))
        if op.inplace and operands and not self._sole_user(node.inputs[0], node, users):
            operands[0] = f"{operands[0]}.copy()"
        template = template_of(op.emit, node.attrs, len(operands)) if op.emit is not None else None
        if template is not None:  # the usual way: the op's expression parsed once per process
            expr = fill(template, operands)
            if expr is not None and node in self.contiguous:
                expr = Expr(f"np.ascontiguousarray({expr.text})")
            return expr
        args, parts = [], {}
        for item in operands:
            if isinstance(item, str):
                args.append(item)
            else:
                args.append(placeholder(len(parts)))
                parts[args[-1]] = item
        text = op.emit(args, node.attrs) if op.emit is not None else None
        if text is not None:  # an expression not on one line, or not ASCII: parsed here
            expr = substitute(text, parts) if parts or operand else Expr(text)
        else:  # a call of the op's implementation: each operand is an argument
            args = [a if isinstance(a, str) else a.text if a.precedence >= 1 else f"({a.text})" for a in operands]
            expr = Expr(self._impl_call(node, op.impl, args))
        if expr is not None and node in self.contiguous:
            expr = Expr(f"np.ascontiguousarray({expr.text})")
        return expr

    def _operand(self, node: Node, indent: int, users) -> str:
        """A value as an operand of a statement: its name, or its expression where it is inlined."""
        if node in self.inline:
            return self._expression_or_statements(node, indent, users).text
        return self.name_of(node)

    def carried(self, node: Node) -> str:
        """A subgraph result as it leaves the subgraph.

        A handle (object dtype) taken from an enclosing graph is copied, so that
        in-place writes on the cond/while output cannot reach the outer value.
        """
        name = self.name_of(node)
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

@functools.lru_cache(maxsize=4096)
def _comment(origin: Origin) -> str:
    """`# file.py:12  the line's source`."""
    text = origin.text.strip().splitlines()[0] if origin.text.strip() else ""
    where = f"# {os.path.basename(origin.file)}:{origin.line}"
    return f"{where}  {text}" if text else where


def _is_unit(type_: Any) -> bool:
    return isinstance(type_, TensorType) and type_.dtype == object


def _output(emitter: _Emitter, node: Node) -> str:
    """A Variable's value leaves the graph as a copy, so changing it cannot change the Variable."""
    name = emitter.name_of(node)
    return f"{name}.copy()" if node.op == "read_variable" else name


def generate_source(graph: Graph, name: str | None = None) -> GeneratedSource:
    """The Python source of `graph` as one function and the globals it reads."""
    emitter = _Emitter(graph)
    params = [emitter.name_of(n) for n in graph.inputs]
    fn_name = emitter.ns.create(name or graph.name)
    emitter.write(0, f"def {fn_name}({', '.join(params)}):")
    emitter.emit_graph(graph, 1)
    outputs = [_output(emitter, o) for o in graph.outputs]
    body = emitter.lines[1:]
    emitter.write(1, "return [" + ", ".join(outputs) + "]")
    for lines, origins in emitter.functions:  # after the function, so its lines keep their numbers
        emitter.lines.append("")
        offset = len(emitter.lines)
        emitter.lines += lines
        emitter.origins.update((line + offset, origin) for line, origin in origins.items())
    source = "\n".join(emitter.lines) + "\n"
    return GeneratedSource(fn_name, params, source, emitter.globals, emitter.origins, body, outputs)
