"""Translation: a parsed `ast` tree to the gast tree the converters work on.

The result is node for node what `gast.ast_to_gast` builds (same classes,
fields and locations; a parameter is a `Name` in `Param` context, an except
handler's name a `Name`, defs and classes get empty `type_params`), built
without a visitor's per-node method lookup and keyword-argument calls.

Most gast classes have the fields of the `ast` class of the same name and
the same layout, so a node becomes its gast counterpart in place: its class
is changed and its children translated, nothing copied. Only what gast spells
differently is made anew: parameters, except handlers' names, defs and
classes, and the contexts and operators `ast` shares between all nodes
(one `Load()` for the whole tree), which gast nodes each own.

On Pythons whose `ast` differs further from gast (3.12 and later: type
parameters) `gast.ast_to_gast` itself does the work.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable

import gast

__all__ = ["to_gast"]

_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_AST = ast.AST


def _value(value: object) -> object:
    if type(value) is list:
        return [_node(v) if isinstance(v, _AST) else v for v in value]
    if isinstance(value, _AST):
        return _node(value)
    return value


def _locate(new: gast.AST, node: ast.AST) -> gast.AST:
    """Copy the location as `ast.copy_location` does."""
    for attr in _LOCATION:
        value = getattr(node, attr, None)
        if value is not None or (attr.startswith("end_") and hasattr(node, attr)):
            setattr(new, attr, value)
    return new


def _node(node: ast.AST) -> gast.AST | None:
    translate = _TRANSLATORS.get(type(node))
    if translate is None:
        translate = _TRANSLATORS[type(node)] = _generic(type(node))
    return translate(node)


def _generic(cls: type) -> Callable[[ast.AST], gast.AST | None]:
    """The translation of an `ast` class gast spells the same way: the node itself, retyped."""
    target = getattr(gast, cls.__name__, None)
    fields = () if cls is ast.Constant else tuple(f for f in cls._fields if f not in _PLAIN_FIELDS)
    if target is None:
        return lambda node: None  # not part of gast's tree (as gast drops it)
    if not cls._fields and not cls._attributes:
        return lambda node: target.__new__(target)  # a context or operator: ast shares one, gast nodes own theirs

    def translate(node: ast.AST) -> gast.AST:
        slots = node.__dict__
        for field in fields:
            value = slots.get(field)
            if type(value) is list:
                for i, item in enumerate(value):
                    if isinstance(item, _AST):
                        value[i] = _name(item) if type(item) is _AST_NAME else _node(item)
            elif type(value) is _AST_NAME:  # the commonest child, translated without the table
                slots[field] = _name(value)
            elif isinstance(value, _AST):
                slots[field] = _node(value)
        node.__class__ = target
        return node

    return translate


_AST_NAME = ast.Name
# fields that never hold a node in the classes translated by `_generic` (a Constant's value neither)
_PLAIN_FIELDS = frozenset(
    {"id", "attr", "arg", "name", "asname", "kind", "type_comment", "module", "level", "conversion",
     "is_async", "simple", "kwd_attrs", "rest", "tag"}
)  # fmt: skip


def _name(node: ast.Name) -> gast.Name:
    context = _CONTEXTS.get(type(node.ctx))
    if context is None or node.lineno is None or node.col_offset is None:
        return _locate(gast.Name(node.id, _node(node.ctx), None, None), node)
    # the commonest node, retyped in place with the fields gast adds
    slots = node.__dict__
    slots["ctx"] = context.__new__(context)
    slots["annotation"] = slots["type_comment"] = None
    node.__class__ = _NAME
    return node


_NAME = gast.Name
_CONTEXTS = {ast.Load: gast.Load, ast.Store: gast.Store, ast.Del: gast.Del}


def _arg(node: ast.arg) -> gast.Name:
    return _locate(gast.Name(node.arg, gast.Param(), _value(node.annotation), node.type_comment), node)


def _handler(node: ast.ExceptHandler) -> gast.ExceptHandler:
    if not node.name:
        return _nameless_handler(node)
    name = gast.Name(node.name, gast.Store(), None, None)
    return _locate(gast.ExceptHandler(_value(node.type), name, _value(node.body)), node)


def _function(node: ast.FunctionDef) -> gast.FunctionDef:
    target = getattr(gast, type(node).__name__)
    fields = (node.name, _node(node.args), _value(node.body), _value(node.decorator_list))
    return _locate(target(*fields, _value(node.returns), node.type_comment, []), node)


def _class(node: ast.ClassDef) -> gast.ClassDef:
    fields = (node.name, _value(node.bases), _value(node.keywords), _value(node.body), _value(node.decorator_list))
    return _locate(gast.ClassDef(*fields, []), node)


_nameless_handler = _generic(ast.ExceptHandler)
# ast class -> its translation; the classes gast spells differently first, others added on first use
_TRANSLATORS: dict[type, Callable[[ast.AST], gast.AST | None]] = {
    ast.Name: _name,
    ast.arg: _arg,
    ast.ExceptHandler: _handler,
    ast.FunctionDef: _function,
    ast.AsyncFunctionDef: _function,
    ast.ClassDef: _class,
}


def to_gast(tree: ast.AST) -> gast.AST:
    """The gast tree of `tree`, made mostly of `tree`'s own nodes: `tree` is used up."""
    if sys.version_info >= (3, 12):
        return gast.ast_to_gast(tree)
    return _node(tree)
