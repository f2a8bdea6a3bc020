"""Inlining: a value used once, on the line that made it, is written inside its use.

    remainder = n % 2
    equal = remainder == 0      ->    if n % 2 == 0:
    if equal:

`inlined(graph, users, same_line)` decides which nodes of one graph are
written into their only user rather than as a statement of their own: a pure
op (not effectful, stateful or in-place, no handle) from the same user line
as its user, used once, where nothing else is emitted between it and its
user and Python evaluates the inlined operands in graph order (so an error
or a warning still comes from the op it came from before). `substitute`
writes the operands into the user's expression with parentheses only where
Python's precedence needs them (`-(a - b)`, `(a + b) * c`, `(x + 1).sum()`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.ir.graph import Graph, Node
from runtime.ir.opcodes import SUBGRAPH_FIELDS
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot
from runtime.ops.registry import OPS

__all__ = ["Expr", "Template", "substitute", "template_of", "fill", "inlined", "placeholder"]

ATOM = 14
_BINARY = {
    ast.BitOr: 5, ast.BitXor: 6, ast.BitAnd: 7, ast.LShift: 8, ast.RShift: 8, ast.Add: 9, ast.Sub: 9,
    ast.Mult: 10, ast.Div: 10, ast.FloorDiv: 10, ast.Mod: 10, ast.MatMult: 10, ast.Pow: 12,
}
_SILENT = ("input", "capture", "constant")


@dataclass(frozen=True, slots=True)
class Expr:
    """Python expression text and the precedence of its outermost operator (ATOM for a name or call)."""

    text: str
    precedence: int = ATOM


def placeholder(index: int) -> str:
    """A name standing for an inlined operand until `substitute` writes it in."""
    return f"__inlined{index}__"


def _precedence(node: ast.AST, text: str) -> int:
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)]
    if isinstance(node, ast.UnaryOp):
        return 3 if isinstance(node.op, ast.Not) else 11
    if isinstance(node, ast.Compare):
        return 4
    if isinstance(node, ast.BoolOp):
        return 2 if isinstance(node.op, ast.And) else 1
    if isinstance(node, ast.Tuple):
        return ATOM if text.startswith("(") and text.endswith(")") else 0
    if isinstance(node, (ast.IfExp, ast.Lambda, ast.NamedExpr, ast.Starred, ast.Yield, ast.YieldFrom, ast.Await)):
        return 0
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex)):
        return ATOM - 1  # `1.real` does not parse: a number needs parentheses before an attribute
    return ATOM


def _needed(parent: ast.AST, child: ast.AST) -> int:
    """The least precedence an operand at `child`'s place may have without parentheses."""
    if isinstance(parent, ast.BinOp):
        power = isinstance(parent.op, ast.Pow)
        if child is parent.left:
            return ATOM - 1 if power else _BINARY[type(parent.op)]
        return 11 if power else _BINARY[type(parent.op)] + 1
    if isinstance(parent, ast.UnaryOp):
        return 3 if isinstance(parent.op, ast.Not) else 12  # `-(-x)`, not `--x`
    if isinstance(parent, ast.Compare):
        return 5
    if isinstance(parent, ast.BoolOp):
        return 3 if isinstance(parent.op, ast.And) else 2
    if isinstance(parent, (ast.Attribute, ast.Starred)) or (
        isinstance(parent, (ast.Subscript, ast.Call)) and child is (parent.value if isinstance(parent, ast.Subscript)
                                                                    else parent.func)
    ):
        return ATOM
    if isinstance(parent, ast.IfExp):
        return 1
    return 1  # an argument, an element, an index, a keyword's value, an assigned value


def substitute(template: str, parts: Mapping[str, Expr], statement: bool = False) -> Expr | None:
    """`template` with each placeholder name of `parts` replaced by its text, parenthesised where
    needed; None where it cannot be done (a template over several lines)."""
    try:
        tree = ast.parse(template, mode="exec" if statement else "eval")
    except SyntaxError:
        return None
    top = tree.body[0] if statement else tree.body
    if statement:
        top = top.value if isinstance(top, (ast.Expr, ast.Assign)) else top
    edits: list[tuple[int, int, str]] = []
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.Name) and child.id in parts:
                if child.lineno != 1 or child.end_lineno != 1:
                    return None
                part = parts[child.id]
                text = part.text if part.precedence >= _needed(parent, child) else f"({part.text})"
                edits.append((child.col_offset, child.end_col_offset, text))
    if len(edits) != len(parts):
        return None
    encoded = template.encode()
    for start, end, text in sorted(edits, reverse=True):
        encoded = encoded[:start] + text.encode() + encoded[end:]
    if isinstance(top, ast.Name) and top.id in parts:
        return Expr(encoded.decode(), parts[top.id].precedence)
    return Expr(encoded.decode(), _precedence(top, template) if isinstance(top, ast.expr) else ATOM)


@dataclass(frozen=True, slots=True)
class Template:
    """An op's emitted expression with a hole per operand: (start, end, least precedence, operand)
    for each hole, the expression's own precedence, and the operand it is when it is one bare operand."""

    text: str
    holes: tuple[tuple[int, int, int, int], ...]
    precedence: int
    bare: int | None


# an op's expression with placeholder operands -> its Template (None: not one line); shared by all compiles.
# Keyed by the text itself, so two calls share a Template only when they print the same.
_TEMPLATES: dict[str, Template | None] = {}
_MAX_TEMPLATES = 4096
_PLACEHOLDERS: list[tuple[str, ...]] = []


def template_of(emit: Callable[[Sequence[str], Mapping[str, Any]], str | None],
                attrs: Mapping[str, Any], count: int) -> Template | None:
    """The Template of `emit` for a call with `count` operands and `attrs` (each text parsed once)."""
    while len(_PLACEHOLDERS) <= count:
        _PLACEHOLDERS.append(tuple(placeholder(i) for i in range(len(_PLACEHOLDERS))))
    names = _PLACEHOLDERS[count]
    text = emit(list(names), attrs)
    if text is None:
        return None
    try:
        return _TEMPLATES[text]
    except KeyError:
        pass
    template = _template(text, {name: i for i, name in enumerate(names)})
    if len(_TEMPLATES) < _MAX_TEMPLATES:
        _TEMPLATES[text] = template
    return template


def _template(text: str, index: Mapping[str, int]) -> Template | None:
    try:
        top = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if text.isascii() is False:
        return None  # ast offsets count UTF-8 bytes: keep to the plain path
    holes = []
    for parent in ast.walk(top):
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.Name) and child.id in index:
                if child.lineno != 1 or child.end_lineno != 1:
                    return None
                holes.append((child.col_offset, child.end_col_offset, _needed(parent, child), index[child.id]))
    bare = index[top.id] if isinstance(top, ast.Name) and top.id in index else None
    if bare is not None:
        holes.append((top.col_offset, top.end_col_offset, 0, bare))
    holes.sort(reverse=True)
    return Template(text, tuple(holes), _precedence(top, text), bare)


def fill(template: Template, operands: Sequence[Expr | str]) -> Expr | None:
    """The template with its operands written in: a name as it is, an expression parenthesised where
    needed. None where an expression operand is not written exactly once (it would run twice, or not)."""
    text = template.text
    seen = [0] * len(operands)
    for start, end, needed, index in template.holes:
        operand = operands[index]
        if isinstance(operand, str):
            part = operand
        else:
            seen[index] += 1
            part = operand.text if operand.precedence >= needed else f"({operand.text})"
        text = text[:start] + part + text[end:]
    if any(count != 1 for count, operand in zip(seen, operands) if not isinstance(operand, str)):
        return None
    if template.bare is not None:
        operand = operands[template.bare]
        return Expr(text, ATOM if isinstance(operand, str) else operand.precedence)
    return Expr(text, template.precedence)


def _pure(node: Node) -> bool:
    if node.op in _SILENT or node.op == "getitem" and node.inputs[0].op in SUBGRAPH_FIELDS:
        return False
    op = OPS.get(node.op)
    return (
        op is not None and not (op.effectful or op.stateful or op.inplace)
        and isinstance(node.type, TensorType) and node.type.dtype != object
    )


def _operand_order(node: Node) -> list[Node]:
    """The node's inputs in the order its emitted expression evaluates them."""
    template = node.attrs.get("args")
    if template is None:
        return list(node.inputs)
    return [node.inputs[item.index] for item in template if isinstance(item, Slot)]


def inlined(
    graph: Graph, users: Mapping[Node, list[Node]], accepts: Callable[[Node, Node], bool],
) -> dict[Node, Node]:
    """Node -> the user it is written into, for the nodes of `graph` that are inlined.

    `accepts(child, user)` says whether the user's emitted form can take the
    child as an operand (the caller knows which nodes print as expressions).
    """
    order = [n for n in graph.nodes if n.op not in _SILENT and not (
        n.op == "getitem" and n.inputs[0].op in SUBGRAPH_FIELDS)]
    if len(order) < 2:
        return {}  # nothing to write into anything
    position = {n: i for i, n in enumerate(order)}
    into: dict[Node, Node] = {}
    for node in order:
        used = users.get(node, ())
        if len(used) != 1 or not _pure(node):
            continue
        user = used[0]
        if user is node or user not in position or not _same_line(node, user) or not accepts(node, user):
            continue
        into[node] = user
    while into:
        roots: dict[Node, Node] = {}
        for node in reversed(order):  # a user comes after what it uses
            user = into.get(node)
            roots[node] = node if user is None else roots[user]
        demoted = [  # something else is emitted between it and its statement
            n for n in into if any(roots[m] is not roots[n] for m in order[position[n] + 1 : position[roots[n]]])
        ]
        if not demoted:
            trees: dict[Node, list[Node]] = {}
            for node in order:
                if node in into:
                    trees.setdefault(roots[node], []).append(node)
            for top, tree in trees.items():  # Python would evaluate them in another order
                if len(tree) > 1 and tree != _evaluation_order(top, into):
                    demoted.extend(tree)
        if not demoted:
            break
        for node in demoted:
            del into[node]
    return into


def _evaluation_order(top: Node, into: Mapping[Node, Node]) -> list[Node]:
    """The inlined nodes under `top` in the order Python evaluates them (operands first, left to right)."""
    found: list[Node] = []

    def visit(node: Node) -> None:
        for operand in _operand_order(node):
            if into.get(operand) is node:
                visit(operand)
                found.append(operand)

    visit(top)
    return found


def _same_line(a: Node, b: Node) -> bool:
    return a.origin is not None and b.origin is not None and (a.origin.file, a.origin.line) == (
        b.origin.file, b.origin.line)
