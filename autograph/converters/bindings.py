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

from autograph.analysis.activity import Activity
from autograph.analysis.traversal import iter_children
from autograph.source.templates import replace

__all__ = ["transform", "unresolved_nonlocals"]


def _scope_bindings(fn: gast.FunctionDef) -> tuple[frozenset[str], frozenset[str]]:
    """(names bound locally, names declared nonlocal) of one function."""
    activity = Activity.of_function(fn)
    return activity.local_names(), activity.nonlocals


def unresolved_nonlocals(fn: gast.FunctionDef) -> list[str]:
    """Names declared nonlocal somewhere inside `fn` that no function from there up to `fn` binds."""
    missing: list[str] = []

    def visit(node: gast.FunctionDef, outer_locals: frozenset[str]) -> None:
        local, declared = _scope_bindings(node)
        for name in sorted(declared - outer_locals):
            if name not in missing:
                missing.append(name)
        visible = outer_locals | local | declared
        for child in _nested_functions(node):
            visit(child, visible)

    fn_locals, fn_nonlocals = _scope_bindings(fn)
    for child in _nested_functions(fn):
        visit(child, fn_locals | fn_nonlocals)
    return missing


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
        stack.extend(iter_children(node))
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
