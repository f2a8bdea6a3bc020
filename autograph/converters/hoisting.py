"""hoisting: generated helper functions move out of the loop body that would redefine them each pass.

    def loop_body():                       def if_body():
        nonlocal i, total                      nonlocal total
        def if_body():              ->         total += i
            nonlocal total                 def loop_body():
            total += i                         nonlocal i, total
        ag__.if_stmt(...)                      ag__.if_stmt(...)
        i += 1                                 i += 1

A helper moves up one generated function at a time, and only when none of
its free names is a local of the function it leaves, so it closes over the
very same cells; defining it once instead of once per iteration is what keeps
converted loops fast in Python mode.
"""

from __future__ import annotations

import gast

from autograph.analysis.activity import Activity, free_names
from autograph.converters.context import Context

__all__ = ["transform"]

_BLOCKS = ("body", "orelse", "finalbody")


def _locals(fn: gast.FunctionDef, staying: list[gast.stmt]) -> frozenset[str]:
    activity = Activity.of_function(fn)
    names = set(activity.params)
    for stmt in staying:
        names |= activity.effects(stmt).writes
    return frozenset(names - activity.globals - activity.nonlocals)


def _split(fn: gast.FunctionDef, generated: set[int]) -> list[gast.FunctionDef]:
    """Remove from `fn`'s body the generated defs that can live one scope up; return them."""
    moved: list[gast.FunctionDef] = []
    while True:
        staying = [s for s in fn.body if s not in moved]
        local = _locals(fn, staying)
        movable = [
            s
            for s in staying
            if isinstance(s, gast.FunctionDef) and id(s) in generated and not (free_names(s) & local - {s.name})
        ]
        if not movable:
            break
        moved += movable
    if moved:
        fn.body = [s for s in fn.body if s not in moved] or [gast.Pass()]
    return moved


def _block(block: list[gast.stmt], generated: set[int]) -> list[gast.stmt]:
    out: list[gast.stmt] = []
    for stmt in block:
        if isinstance(stmt, gast.FunctionDef):
            if id(stmt) in generated:
                stmt.body = _block(stmt.body, generated)
                out.extend(_split(stmt, generated))
            out.append(stmt)
            continue
        if not isinstance(stmt, (gast.AsyncFunctionDef, gast.ClassDef)):
            for field in _BLOCKS:
                inner = getattr(stmt, field, None)
                if inner:
                    setattr(stmt, field, _block(inner, generated))
            for handler in getattr(stmt, "handlers", ()):
                handler.body = _block(handler.body, generated)
        out.append(stmt)
    return out


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Hoist the helpers control_flow generated as far up as their free names allow."""
    node.body = _block(node.body, ctx.generated)
    return node
