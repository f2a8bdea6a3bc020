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

from autograph.analysis.activity import bound_names, free_names
from autograph.converters.context import Context

__all__ = ["transform"]

_BLOCKS = ("body", "orelse", "finalbody")


class _Hoister:
    """Moves generated defs up; scopes are final once visited, so their free names are memoised."""

    def __init__(self, generated: dict[int, gast.FunctionDef]) -> None:
        self.generated = generated
        self.memo: dict[gast.AST, frozenset[str]] = {}

    def _locals(self, fn: gast.FunctionDef, staying: list[gast.stmt]) -> frozenset[str]:
        args = fn.args
        names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]}
        declared: set[str] = set()
        for stmt in staying:
            if isinstance(stmt, (gast.Global, gast.Nonlocal)):
                declared |= set(stmt.names)
            elif isinstance(stmt, gast.FunctionDef):
                names.add(stmt.name)
            else:
                names |= bound_names([stmt])
        return frozenset(names - declared)

    def split(self, fn: gast.FunctionDef) -> list[gast.FunctionDef]:
        """Remove from `fn`'s body the generated defs that can live one scope up; return them."""
        moved: list[gast.FunctionDef] = []
        staying = list(fn.body)
        while any(isinstance(s, gast.FunctionDef) and id(s) in self.generated for s in staying):
            local = self._locals(fn, staying)
            movable = [
                s
                for s in staying
                if isinstance(s, gast.FunctionDef)
                and id(s) in self.generated
                and not (free_names(s, self.memo) & (local - {s.name}))
            ]
            if not movable:
                break
            moved += movable
            staying = [s for s in staying if not any(s is m for m in movable)]
        if moved:
            fn.body = staying or [gast.Pass()]
        return moved

    def block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for stmt in block:
            if isinstance(stmt, gast.FunctionDef):
                if id(stmt) in self.generated:
                    stmt.body = self.block(stmt.body)
                    out.extend(self.split(stmt))
                out.append(stmt)
                continue
            if not isinstance(stmt, (gast.AsyncFunctionDef, gast.ClassDef)):
                for field in _BLOCKS:
                    inner = getattr(stmt, field, None)
                    if inner:
                        setattr(stmt, field, self.block(inner))
                for handler in getattr(stmt, "handlers", ()):
                    handler.body = self.block(handler.body)
            out.append(stmt)
        return out


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Hoist the helpers control_flow generated as far up as their free names allow."""
    node.body = _Hoister(ctx.generated).block(node.body)
    return node
