"""Templates: converters write code as text with placeholders, not hand-built trees.

    LOOP = '''
        def loop_body():
            nonlocal state
            body
        ag__.while_stmt(loop_test, loop_body, get_state, set_state, names, opts)
    '''
    replace(LOOP, loop_body="loop_body_1", state=["x"], body=stmts, ...)

A template is parsed once and cached; `replace` builds a fresh tree from it,
substituting placeholders as it goes:
  - a name given a `str` is renamed (names, def names, arguments, nonlocal lists),
  - a name given a gast expression is replaced by that node (its ctx fixed),
  - a statement that is a bare placeholder given a list of statements is spliced,
  - a nonlocal/global placeholder given a list of names is spliced (dropped if empty).
"""

from __future__ import annotations

import textwrap
from functools import cache

import gast

__all__ = ["replace", "replace_expr"]

_Sub = str | gast.AST | list


@cache
def _parse(template: str) -> tuple[gast.stmt, ...]:
    return tuple(gast.parse(textwrap.dedent(template)).body)


def replace(template: str, loc: gast.AST | None = None, **subs: _Sub) -> list[gast.stmt]:
    """The template's statements with placeholders substituted (a new tree every call).

    `loc`: the user node whose location every new node takes (substituted
    nodes keep their own), so generated lines map back to the user's line.
    """
    location = _location(loc)
    out: list[gast.stmt] = []
    for stmt in _parse(template):
        out.extend(_stmt(stmt, subs, location))
    return out


def replace_expr(template: str, loc: gast.AST | None = None, **subs: _Sub) -> gast.expr:
    """A one-expression template, substituted."""
    (stmt,) = replace(template, loc, **subs)
    return stmt.value


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


_NO_LOCATION = tuple((attr, None) for attr in _LOCATION)


def _location(loc: gast.AST | None) -> tuple:
    if loc is None or getattr(loc, "lineno", None) is None:
        return _NO_LOCATION  # to be filled by inherit_location
    return tuple((attr, getattr(loc, attr, None)) for attr in _LOCATION)


def _stmt(node: gast.stmt, subs: dict, location: tuple) -> list[gast.stmt]:
    if isinstance(node, gast.Expr) and isinstance(node.value, gast.Name) and node.value.id in subs:
        sub = subs[node.value.id]
        if isinstance(sub, list):
            return sub
        if isinstance(sub, gast.stmt):
            return [sub]
    if isinstance(node, (gast.Nonlocal, gast.Global)):
        names: list[str] = []
        for name in node.names:
            sub = subs.get(name, name)
            names.extend(sub if isinstance(sub, list) else [sub])
        if not names:
            return []
        new = type(node)(names=names)
        for attr, value in location:
            setattr(new, attr, value)
        return [new]
    return [_copy(node, subs, location)]


def _copy(node: gast.AST, subs: dict, location: tuple) -> gast.AST:
    cls = type(node)
    if cls is gast.Name and node.id in subs:
        return _name_sub(node, subs[node.id])
    new = cls.__new__(cls)
    for field in cls._fields:
        value = getattr(node, field, None)
        if type(value) is list:
            if value and isinstance(value[0], gast.stmt):
                value = [s for stmt in value for s in _stmt(stmt, subs, location)]
            else:
                value = [_copy(v, subs, location) if isinstance(v, gast.AST) else v for v in value]
        elif isinstance(value, gast.AST):
            if not isinstance(value, (gast.expr_context, gast.operator, gast.boolop, gast.cmpop, gast.unaryop)):
                value = _copy(value, subs, location)
        elif field == "name" and type(value) is str and value in subs:
            value = subs[value]
        setattr(new, field, value)
    if isinstance(node, (gast.stmt, gast.expr)):
        for attr, value in location:
            setattr(new, attr, value)
    return new


def _name_sub(node: gast.Name, sub: _Sub) -> gast.AST:
    if isinstance(sub, str):
        return gast.Name(id=sub, ctx=node.ctx, annotation=None, type_comment=None)
    if isinstance(sub, list):
        raise TypeError(f"placeholder {node.id!r} is an expression; got a list")
    if isinstance(sub, (gast.Name, gast.Tuple, gast.List, gast.Attribute, gast.Subscript, gast.Starred)):
        set_ctx(sub, node.ctx)
    return sub


def set_ctx(node: gast.AST, ctx: gast.AST) -> None:
    """Give a target expression (and a tuple's elements) the context of where it now stands."""
    node.ctx = type(ctx)()
    if isinstance(node, (gast.Tuple, gast.List)):
        for elt in node.elts:
            set_ctx(elt, ctx)
    elif isinstance(node, gast.Starred):
        set_ctx(node.value, ctx)
