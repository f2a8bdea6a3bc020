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

Each class's translation is written out once, as Python text (`_generic`):
its fields one after the other, names and constants handled on the spot.

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
    return _TRANSLATORS[type(node)](node)


def _generic(cls: type) -> Callable[[ast.AST], gast.AST | None]:
    """The translation of an `ast` class gast spells the same way: the node itself, retyped."""
    target = getattr(gast, cls.__name__, None)
    if target is None:
        return lambda node: None  # not part of gast's tree (as gast drops it)
    if not cls._fields and not cls._attributes:
        return lambda node: target.__new__(target)  # a context or operator: ast shares one, gast nodes own theirs
    fields = () if cls is ast.Constant else tuple(f for f in cls._fields if f not in _PLAIN_FIELDS)
    source = [f"def translate_{cls.__name__}(node):", "    slots = node.__dict__"]
    for field in fields:
        code = _OWNED if field in ("ctx", "op") else _CHILDREN
        source += code.replace("FIELD", repr(field)).splitlines()
    source += ["    node.__class__ = target", "    return node"]
    namespace = {"target": target, **_NAMESPACE}
    exec("\n".join(source), namespace)  # noqa: S102 - our own text, from a class's field names
    return namespace[f"translate_{cls.__name__}"]


# A translator is written out per class, its fields one after the other, from these texts:
# no loop over the field names, and the commonest children (names, constants) handled on
# the spot, a constant retyped without a call at all.
_CHILDREN = """
    value = slots.get(FIELD)
    kind = type(value)
    if kind is list:
        for i, item in enumerate(value):
            kind = type(item)
            if kind is AST_NAME:
                value[i] = _name(item)
            elif kind is AST_CONSTANT:
                item.__class__ = CONSTANT
            elif isinstance(item, AST):
                value[i] = translators[kind](item)
    elif kind is AST_NAME:
        slots[FIELD] = _name(value)
    elif kind is AST_CONSTANT:
        value.__class__ = CONSTANT
    elif isinstance(value, AST):
        slots[FIELD] = translators[kind](value)
"""
# a context or operator: always one, owned by the node in gast
_OWNED = """
    value = slots[FIELD]
    slots[FIELD] = translators[type(value)](value)
"""


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


class _Translators(dict):
    """ast class -> its translation: the classes gast spells differently given, others written on first use."""

    def __missing__(self, cls: type) -> Callable[[ast.AST], gast.AST | None]:
        translate = self[cls] = _generic(cls)
        return translate


_TRANSLATORS = _Translators(
    {
        ast.Name: _name,
        ast.arg: _arg,
        ast.ExceptHandler: _handler,
        ast.FunctionDef: _function,
        ast.AsyncFunctionDef: _function,
        ast.ClassDef: _class,
    }
)
_NAMESPACE = {
    "AST": _AST, "AST_NAME": ast.Name, "AST_CONSTANT": ast.Constant, "CONSTANT": gast.Constant,
    "_name": _name, "translators": _TRANSLATORS,
}  # fmt: skip
_nameless_handler = _generic(ast.ExceptHandler)


def to_gast(tree: ast.AST) -> gast.AST:
    """The gast tree of `tree`, made mostly of `tree`'s own nodes: `tree` is used up."""
    if sys.version_info >= (3, 12):
        return gast.ast_to_gast(tree)
    return _node(tree)
