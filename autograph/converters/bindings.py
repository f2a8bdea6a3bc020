"""bindings: every `nonlocal` in generated code must find a binding in an enclosing function.

A name can be carried by one statement while its only earlier binding stayed
local to another statement's branch function (it was not live after that
one):

    if a:                       # j is local to this if's else_body
        pass
    else:
        j = 1
    if b:                       # carries j: `nonlocal j` needs a binding in f
        j = 2
    else:
        raise E
    return j

For such names the function starts with `j = ag__.Undefined('j')`.
"""

from __future__ import annotations

import gast

from autograph.analysis.activity import expression_effects
from autograph.source.templates import replace

__all__ = ["transform", "unresolved_nonlocals"]


def _scope_bindings(fn: gast.FunctionDef, memo: dict) -> tuple[frozenset[str], frozenset[str]]:
    """(names bound locally, names declared nonlocal) of one function."""
    args = fn.args
    bound = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]}
    declared: set[str] = set()
    nonlocal_: set[str] = set()
    for stmt in fn.body:
        bound |= expression_effects(stmt, memo).writes
    for node in _own_statements(fn.body):
        if isinstance(node, gast.Global):
            declared |= set(node.names)
        elif isinstance(node, gast.Nonlocal):
            nonlocal_ |= set(node.names)
    return frozenset(bound - declared - nonlocal_), frozenset(nonlocal_)


def unresolved_nonlocals(fn: gast.FunctionDef) -> list[str]:
    """Names declared nonlocal somewhere inside `fn` that no function from there up to `fn` binds."""
    missing: list[str] = []
    memo: dict = {}

    def visit(node: gast.FunctionDef, outer_locals: frozenset[str]) -> None:
        local, declared = _scope_bindings(node, memo)
        for name in sorted(declared - outer_locals):
            if name not in missing:
                missing.append(name)
        visible = outer_locals | local | declared
        for child in _nested_functions(node):
            visit(child, visible)

    fn_locals, fn_nonlocals = _scope_bindings(fn, memo)
    for child in _nested_functions(fn):
        visit(child, fn_locals | fn_nonlocals)
    return missing


def _own_statements(block: list[gast.stmt]):
    """Statements of a function's own blocks (global/nonlocal live only there)."""
    for stmt in block:
        yield stmt
        if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _own_statements(inner)
        for child in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
            yield from _own_statements(child.body)


def _nested_functions(fn: gast.FunctionDef) -> list[gast.FunctionDef]:
    out: list[gast.FunctionDef] = []
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, gast.FunctionDef):
            out.append(node)
            continue
        if isinstance(node, (gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        stack.extend(gast.iter_child_nodes(node))
    return out


def transform(fn: gast.FunctionDef, generated: dict[int, gast.FunctionDef]) -> gast.FunctionDef:
    """Bind, at the top of `fn`, the carried names that have no binding to resolve to."""
    if not generated:
        return fn
    missing = unresolved_nonlocals(fn)
    if not missing:
        return fn
    inits: list[gast.stmt] = []
    for name in missing:
        inits += replace("name = ag__.Undefined(text)", fn.body[0], name=name, text=gast.Constant(value=name, kind=None))
    start = 1 if _has_docstring(fn) else 0
    fn.body[start:start] = inits
    return fn


def _has_docstring(fn: gast.FunctionDef) -> bool:
    first = fn.body[0]
    return isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant) and isinstance(first.value.value, str)
