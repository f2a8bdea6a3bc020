"""Templates: converters write code as text with placeholders, not hand-built trees.

    LOOP = '''
        def loop_body():
            nonlocal state
            body
        ag__.while_stmt(loop_test, loop_body, get_state, set_state, names, opts)
    '''
    replace(LOOP, loop_body="loop_body_1", state=["x"], body=stmts, ...)

A template is parsed once and its builder cached (the `_BUILDERS` most
recently used); `replace` builds a fresh tree from it, substituting
placeholders as it goes:
  - a name given a `str` is renamed (names, def names, arguments, nonlocal lists),
  - a name given a gast expression is replaced by that node (its ctx fixed),
  - a statement that is a bare placeholder given a list of statements is spliced,
  - a nonlocal/global placeholder given a list of names is spliced (dropped if empty).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from functools import lru_cache

import gast

__all__ = ["constant", "load_name", "replace", "replace_expr", "set_ctx", "tuple_of"]

_Sub = str | gast.AST | list


# A template is compiled once into plans, one per node, so instantiating it
# tests nothing but placeholders: (class, located, Name id or None, fields),
# each field a (name, kind, payload) with kind one of:
_VALUE, _NAME, _NODE, _EXPRS, _STMTS = range(5)
_SHARED = (gast.expr_context, gast.operator, gast.boolop, gast.cmpop, gast.unaryop)


def _plan(node: gast.AST) -> tuple:
    cls = type(node)
    fields = []
    for field in cls._fields:
        value = getattr(node, field, None)
        if type(value) is list:
            if value and isinstance(value[0], gast.stmt):
                fields.append((field, _STMTS, tuple(_plan(v) for v in value)))
            else:
                items = tuple((True, _plan(v)) if isinstance(v, gast.AST) else (False, v) for v in value)
                fields.append((field, _EXPRS, items))
        elif isinstance(value, gast.AST) and not isinstance(value, _SHARED):
            fields.append((field, _NODE, _plan(value)))
        elif field == "name" and type(value) is str:
            fields.append((field, _NAME, value))
        else:
            fields.append((field, _VALUE, value))
    name_id = node.id if cls is gast.Name else None
    return cls, isinstance(node, (gast.stmt, gast.expr)), name_id, tuple(fields), node


def _parse(template: str) -> tuple[tuple, ...]:
    return tuple(_plan(stmt) for stmt in gast.parse(textwrap.dedent(template)).body)


def replace(template: str, loc: gast.AST | None = None, **subs: _Sub) -> list[gast.stmt]:
    """The template's statements with placeholders substituted (a new tree every call).

    `loc`: the user node whose location every new node takes (substituted
    nodes keep their own), so generated lines map back to the user's line.
    """
    return _builder(template)(subs, _location(loc))


def replace_expr(template: str, loc: gast.AST | None = None, **subs: _Sub) -> gast.expr:
    """A one-expression template, substituted."""
    (stmt,) = replace(template, loc, **subs)
    return stmt.value


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _location(loc: gast.AST | None) -> dict:
    lineno = getattr(loc, "lineno", None)
    if lineno is None:
        return dict.fromkeys(_LOCATION)  # to be filled by inherit_location
    return {
        "lineno": lineno,
        "col_offset": getattr(loc, "col_offset", None),
        "end_lineno": getattr(loc, "end_lineno", None),
        "end_col_offset": getattr(loc, "end_col_offset", None),
    }


# builders kept, least recently used dropped first: the converters' own templates are
# fewer than a hundred, but those naming a carried attribute or subscript (`self.x`,
# `a[0]`) are one per such name, so a long-running process converting much code would
# otherwise keep one per name it ever met
_BUILDERS = 512


@lru_cache(maxsize=_BUILDERS)
def _builder(template: str) -> Callable[[dict, dict], list[gast.stmt]]:
    """The template's plans turned into one Python function that builds a fresh copy.

    Walking the plans for every copy tested each field's kind again; the
    builder is the same walk written out once, so a copy does nothing but
    make nodes and look up placeholders. For `flag = True` it reads:

        def build(subs, L):
            get = subs.get
            return [*[new(K[0], {'targets': [(sub_name(K[1], subs['flag'])
                if 'flag' in subs else new(K[2], {'id': 'flag', ...}))], ...})]]
    """
    writer = _BuilderWriter()
    body = writer.statements(_parse(template))
    source = f"def build(subs, L):\n    get = subs.get\n    return {body}\n"
    scope = {"K": writer.constants, "new": _new, "sub_name": _name_sub, "spliced": _spliced, "declare": _declare}
    exec(compile(source, f"<template {template.strip()[:40]!r}>", "exec"), scope)  # noqa: S102 - our own plans
    return scope["build"]


class _BuilderWriter:
    """Writes a template's plans as one Python expression building the statements."""

    def __init__(self) -> None:
        self.constants: list[object] = []
        self.temporaries = 0

    def constant(self, value: object) -> str:
        self.constants.append(value)
        return f"K[{len(self.constants) - 1}]"

    def statements(self, plans: tuple) -> str:
        return "[" + ", ".join("*" + self.statement(plan) for plan in plans) + "]"

    def statement(self, plan: tuple) -> str:
        """An expression for the list of statements one statement plan becomes (see `_stmt`)."""
        node = plan[4]
        if isinstance(node, (gast.Nonlocal, gast.Global)):
            return f"declare({self.constant(type(node))}, {self.constant(tuple(node.names))}, subs, L)"
        copy = f"[{self.node(plan)}]"
        if isinstance(node, gast.Expr) and isinstance(node.value, gast.Name):
            self.temporaries += 1
            spliced = f"s{self.temporaries}"
            return f"({spliced} if ({spliced} := spliced(get({node.value.id!r}))) is not None else {copy})"
        return copy

    def node(self, plan: tuple) -> str:
        """An expression for a fresh copy of one node plan (see `_copy`)."""
        cls, located, name_id, fields, node = plan
        parts = []
        for field, kind, payload in fields:
            if kind == _VALUE:
                value = self.constant(payload)
            elif kind == _NODE:
                value = self.node(payload)
            elif kind == _EXPRS:
                items = (self.node(item) if is_node else self.constant(item) for is_node, item in payload)
                value = "[" + ", ".join(items) + "]"
            elif kind == _STMTS:
                value = self.statements(payload)
            else:
                value = f"get({payload!r}, {payload!r})"
            parts.append(f"{field!r}: {value}")
        if located:
            parts.append("**L")
        made = f"new({self.constant(cls)}, {{{', '.join(parts)}}})"
        if name_id is None:
            return made
        # a constant, or a name standing in its context already, is placed as it is without a call
        as_is = (
            f"(_t := type(_v := subs[{name_id!r}])) is {self.constant(gast.Constant)}"
            f" or (_t is {self.constant(gast.Name)} and type(_v.ctx) is {self.constant(type(node.ctx))})"
        )
        substituted = f"(_v if {as_is} else sub_name({self.constant(node)}, _v))"
        return f"({substituted} if {name_id!r} in subs else {made})"


def _new(cls: type, fields: dict) -> gast.AST:
    """A node of `cls` with `fields` as its attributes, without the keyword constructor's checks."""
    node = cls.__new__(cls)
    node.__dict__ = fields
    return node


def _spliced(sub: _Sub | None) -> list | None:
    """What a bare placeholder statement becomes when given statements; None when it stays a copy."""
    if isinstance(sub, list):
        return sub
    if isinstance(sub, gast.stmt):
        return [sub]
    return None


def _declare(cls: type, names: tuple[str, ...], subs: dict, location: dict) -> list[gast.stmt]:
    """A nonlocal/global with its placeholders spliced (none left: no statement)."""
    out: list[str] = []
    for name in names:
        sub = subs.get(name, name)
        out.extend(sub if isinstance(sub, list) else [sub])
    if not out:
        return []
    return [_new(cls, {"names": out, **location})]


# Contexts have no fields and are never changed, only replaced: one serves every read
# the converters make, as one serves every template instance (and as `ast.parse` shares them)
_LOAD = gast.Load()


def load_name(name: str, ctx: gast.AST | None = None) -> gast.Name:
    """`name` as an expression node (read, unless given `ctx`).

    What `gast.Name(id=name, ctx=gast.Load(), ...)` builds, without gast's keyword
    constructor: converters make thousands of these per conversion.
    """
    new = gast.Name.__new__(gast.Name)
    new.__dict__ = {"id": name, "ctx": _LOAD if ctx is None else ctx, "annotation": None, "type_comment": None}
    return new


def constant(value: object) -> gast.Constant:
    """`value` as a Constant node: what `gast.Constant(value=value, kind=None)` builds, without
    gast's keyword constructor (the names of every carried tuple are such constants)."""
    new = gast.Constant.__new__(gast.Constant)
    new.__dict__ = {"value": value, "kind": None}
    return new


def tuple_of(elts: list[gast.expr], ctx: gast.AST | None = None) -> gast.Tuple:
    """A tuple display of `elts` (read, unless given `ctx`), as `load_name` builds a name."""
    new = gast.Tuple.__new__(gast.Tuple)
    new.__dict__ = {"elts": elts, "ctx": _LOAD if ctx is None else ctx}
    return new


# what a placeholder standing for an expression may be given that takes its context
_TARGETS = frozenset({gast.Name, gast.Tuple, gast.List, gast.Attribute, gast.Subscript, gast.Starred})


def _name_sub(node: gast.Name, sub: _Sub) -> gast.AST:
    kind = type(sub)
    if kind is str:
        new = gast.Name.__new__(gast.Name)  # load_name's node, in the placeholder's context
        new.__dict__ = {"id": sub, "ctx": node.ctx, "annotation": None, "type_comment": None}
        return new
    if kind in _TARGETS:
        if type(sub.ctx) is not type(node.ctx):
            set_ctx(sub, node.ctx)
    elif isinstance(sub, str):
        return load_name(sub, node.ctx)
    elif isinstance(sub, list):
        raise TypeError(f"placeholder {node.id!r} is an expression; got a list")
    return sub


def set_ctx(node: gast.AST, ctx: gast.AST) -> None:
    """Give a target expression (and a tuple's elements) the context of where it now stands.

    A node that stands in the same context already keeps its own, and so do
    its elements: a tuple's elements stand where it stands, in every parsed
    tree and every tree the converters build. The others share `ctx`. Only
    the node kinds with a context field are given one: a constant or a call
    among a tuple's elements has none to change.
    """
    kind = type(node)
    if kind not in _TARGETS or type(node.ctx) is type(ctx):
        return
    node.ctx = ctx
    if kind is gast.Tuple or kind is gast.List:
        for elt in node.elts:
            set_ctx(elt, ctx)
    elif kind is gast.Starred:
        set_ctx(node.value, ctx)
