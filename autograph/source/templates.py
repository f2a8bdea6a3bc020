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


@cache
def _parse(template: str) -> tuple[tuple, ...]:
    return tuple(_plan(stmt) for stmt in gast.parse(textwrap.dedent(template)).body)


def replace(template: str, loc: gast.AST | None = None, **subs: _Sub) -> list[gast.stmt]:
    """The template's statements with placeholders substituted (a new tree every call).

    `loc`: the user node whose location every new node takes (substituted
    nodes keep their own), so generated lines map back to the user's line.
    """
    location = _location(loc)
    out: list[gast.stmt] = []
    for plan in _parse(template):
        out.extend(_stmt(plan, subs, location))
    return out


def replace_expr(template: str, loc: gast.AST | None = None, **subs: _Sub) -> gast.expr:
    """A one-expression template, substituted."""
    (stmt,) = replace(template, loc, **subs)
    return stmt.value


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _location(loc: gast.AST | None) -> dict:
    if loc is None or getattr(loc, "lineno", None) is None:
        return dict.fromkeys(_LOCATION)  # to be filled by inherit_location
    return {attr: getattr(loc, attr, None) for attr in _LOCATION}


def _stmt(plan: tuple, subs: dict, location: dict) -> list[gast.stmt]:
    node = plan[4]
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
        new.__dict__.update(location)
        return [new]
    return [_copy(plan, subs, location)]


def _copy(plan: tuple, subs: dict, location: dict) -> gast.AST:
    cls, located, name_id, fields, node = plan
    if name_id is not None and name_id in subs:
        return _name_sub(node, subs[name_id])
    new = cls.__new__(cls)
    slots = new.__dict__
    for field, kind, payload in fields:
        if kind == _VALUE:
            slots[field] = payload
        elif kind == _NODE:
            slots[field] = _copy(payload, subs, location)
        elif kind == _EXPRS:
            slots[field] = [_copy(item, subs, location) if is_node else item for is_node, item in payload]
        elif kind == _STMTS:
            slots[field] = [s for stmt in payload for s in _stmt(stmt, subs, location)]
        else:
            slots[field] = subs.get(payload, payload)
    if located:
        slots.update(location)
    return new


def _name_sub(node: gast.Name, sub: _Sub) -> gast.AST:
    if isinstance(sub, str):
        new = gast.Name.__new__(gast.Name)  # what gast.Name(id=sub, ...) builds, without its keyword call
        new.__dict__.update(id=sub, ctx=node.ctx, annotation=None, type_comment=None)
        return new
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
