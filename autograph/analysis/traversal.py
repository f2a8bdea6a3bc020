"""Traversal: walking and rewriting gast trees with per-class tables instead of per-node lookups.

`ast.NodeVisitor` builds a method name string and looks it up for every node,
and `ast.iter_child_nodes` asks every field of every node whether it holds a
node. Conversion walks each function many times, so here each node class's
child fields and each transformer class's method for a node class are found
once and kept in a table:

    for node in walk(fn):             # like gast.walk, in the same order
        ...
    class _Calls(Transformer):        # like gast.NodeTransformer
        def visit_Call(self, node): ...

Expression contexts and operators (`Load`, `Add`, `Not`, ...) are leaves with
nothing to rewrite and are never yielded or visited: they are read through
their parent (`node.op`).
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Callable, Iterator

import gast

__all__ = [
    "BLOCK_FIELDS", "CHILD_FIELDS", "INNER_BLOCKS", "Transformer", "iter_children",
    "rewrite_inner_blocks", "statements", "walk",
]

# fields that never hold a statement or expression: operators, contexts and plain strings or numbers
_LEAF_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "module", "level", "conversion", "is_async", "simple"}
)


class _ChildFields(dict):
    """Node class -> its fields that may hold child nodes (in `_fields` order), found on first use.

    Walks read it by subscript (`CHILD_FIELDS[type(node)]`), a plain dict lookup once the class is known.
    """

    def __missing__(self, cls: type) -> tuple[str, ...]:
        fields = self[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
        return fields


CHILD_FIELDS: dict[type, tuple[str, ...]] = _ChildFields()


class _BlockFields(dict):
    """Node class -> its fields that hold statement blocks (or handlers and cases holding them)."""

    def __missing__(self, cls: type) -> tuple[str, ...]:
        fields = self[cls] = tuple(f for f in cls._fields if f in _BLOCKS)
        return fields


BLOCK_FIELDS: dict[type, tuple[str, ...]] = _BlockFields()


def iter_children(node: gast.AST) -> Iterator[gast.AST]:
    """The child nodes of `node` in field order, as `gast.iter_child_nodes` less contexts and operators."""
    for name in CHILD_FIELDS[type(node)]:
        value = getattr(node, name, None)
        if type(value) is list:
            for item in value:
                if isinstance(item, ast.AST):
                    yield item
        elif isinstance(value, ast.AST):
            yield value


def walk(node: gast.AST) -> Iterator[gast.AST]:
    """`node` and every node under it, breadth first as `gast.walk`, less contexts and operators."""
    todo = deque([node])
    pop, push = todo.popleft, todo.append
    while todo:
        node = pop()
        for name in CHILD_FIELDS[type(node)]:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        push(item)
            elif isinstance(value, ast.AST):
                push(value)
        yield node


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(block: list[gast.AST]) -> Iterator[gast.AST]:
    """Every statement of `block` and of the blocks nested in it, nested functions and classes included
    (with the except handlers and match cases holding them), in no particular order.

    Statements live only in statement blocks, so expressions are never entered.
    """
    stack = list(block)
    while stack:
        node = stack.pop()
        yield node
        for field in BLOCK_FIELDS[type(node)]:
            inner = getattr(node, field, None)
            if type(inner) is list:
                stack.extend(inner)


class Transformer(gast.NodeTransformer):
    """`gast.NodeTransformer` with the same results, its `visit_<Class>` methods found once per class.

    Subclasses define `visit_<Class>` methods and call `generic_visit` as
    usual; a method may return a node, a list of nodes (in a list field) or
    None (to remove the node).
    """

    _methods: dict[type, object]
    # set by a transformer whose visit_ methods all take statements: expressions are never
    # entered, since no statement lies inside one
    statements_only = False
    _fields_of: dict[type, tuple[str, ...]] = CHILD_FIELDS
    # whether the class leaves names and constants as they are (no visit_Name / visit_Constant,
    # no visit of its own): then the commonest children are not visited at all, holding nothing
    _keeps_names = True
    _keeps_constants = True
    # whether the class has a `visit` of its own; without, children are dispatched through the
    # method table directly, one Python call per node instead of two
    _own_visit = False
    # whether an attribute of a plain name (`np.sum`, `self.x`) holds nothing to visit either:
    # names are kept and attributes have no visit_ method
    _keeps_attributes = True

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}
        cls._fields_of = BLOCK_FIELDS if cls.statements_only else CHILD_FIELDS
        own_visit = cls._own_visit = cls.visit is not Transformer.visit
        cls._keeps_names = not own_visit and getattr(cls, "visit_Name", None) is None
        cls._keeps_constants = not own_visit and getattr(cls, "visit_Constant", None) in (None, ast.NodeVisitor.visit_Constant)
        cls._keeps_attributes = cls._keeps_names and getattr(cls, "visit_Attribute", None) is None

    def visit(self, node: gast.AST) -> object:
        method = self._methods.get(type(node))
        if method is None:
            method = self._method(type(node))
        return method(self, node)

    @classmethod
    def _method(cls, node_class: type) -> object:
        method = getattr(cls, "visit_" + node_class.__name__, None)
        if method is None or method is ast.NodeVisitor.visit_Constant:
            # NodeVisitor.visit_Constant only serves the deprecated visit_Num/visit_Str names
            method = cls.generic_visit
        cls._methods[node_class] = method
        return method

    def generic_visit(self, node: gast.AST) -> gast.AST:
        for name in self._fields_of[type(node)]:
            value = getattr(node, name, None)
            kind = type(value)
            if kind is list:
                if value:
                    self._visit_list(value)
                continue
            if kind is gast.Constant:
                if self._keeps_constants:
                    continue
            elif kind is gast.Name:
                if self._keeps_names and getattr(value, "annotation", None) is None:
                    continue
            elif kind is gast.Attribute:
                if self._keeps_attributes and type(value.value) is gast.Name and getattr(value.value, "annotation", None) is None:
                    continue
            elif value is None or not isinstance(value, ast.AST):
                continue
            if self._own_visit:
                new = self.visit(value)
            else:
                new = (self._methods.get(kind) or self._method(kind))(self, value)
            if new is None:
                delattr(node, name)
            elif new is not value:
                setattr(node, name, new)
        return node

    def _visit_list(self, values: list) -> None:
        """Visit each node of a list field in place; a visit may drop a node or return several.

        The list is copied only once a visit drops a node or returns several; a
        node replaced by one node is replaced where it stands.
        """
        keeps_names, keeps_constants, keeps_attributes = self._keeps_names, self._keeps_constants, self._keeps_attributes
        methods = None if self._own_visit else self._methods
        out = None  # the new list, once its length changed
        for index, value in enumerate(values):
            kind = type(value)
            if not (
                (kind is gast.Name and keeps_names and getattr(value, "annotation", None) is None)
                or (kind is gast.Constant and keeps_constants)
                or (
                    kind is gast.Attribute
                    and keeps_attributes
                    and type(value.value) is gast.Name
                    and getattr(value.value, "annotation", None) is None
                )
            ) and isinstance(value, ast.AST):
                if methods is None:
                    new = self.visit(value)
                else:
                    new = (methods.get(kind) or self._method(kind))(self, value)
                if out is None:
                    if new is value:
                        continue
                    if isinstance(new, ast.AST):
                        values[index] = new
                        continue
                    out = values[:index]
                if new is None:
                    continue
                if not isinstance(new, ast.AST):
                    out.extend(new)
                    continue
                value = new
            if out is not None:
                out.append(value)
        if out is not None:
            values[:] = out


class _InnerBlocks(dict):
    """Node class -> its fields holding statement blocks of the same scope (handlers last); none for defs and classes."""

    def __missing__(self, cls: type) -> tuple[str, ...]:
        scope = cls in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
        fields = self[cls] = () if scope else tuple(f for f in ("body", "orelse", "finalbody", "handlers") if f in cls._fields)
        return fields


# the blocks a rewrite of one function's statements enters: what passes that move helpers walk
INNER_BLOCKS: dict[type, tuple[str, ...]] = _InnerBlocks()


def rewrite_inner_blocks(stmt: gast.stmt, rewrite: Callable[[list], list]) -> None:
    """Replace each statement block nested in `stmt` (bodies, else, finally, handlers) by its rewrite.

    Most statements hold none: their class's entry in the table is empty.
    """
    for field in INNER_BLOCKS[type(stmt)]:
        inner = getattr(stmt, field, None)
        if not inner:
            continue
        if field == "handlers":
            for handler in inner:
                handler.body = rewrite(handler.body)
        else:
            setattr(stmt, field, rewrite(inner))
