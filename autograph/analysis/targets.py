"""Targets: the names a block binds, read from its statements and their targets alone.

Without `:=` no expression binds a name in the scope it stands in: only
statements do (assignment, for and with targets, imports, defs, except
names, del). A block's bindings then need no walk of its expressions at
all, which hold most of its nodes:

    found = block_targets(fn.body)   # None if the block holds a statement read here never
    found.writes, found.globals, found.nonlocals, found.functions

The answer equals the full walk of `activity` (collecting bindings only)
exactly when the block holds no `:=`; the caller knows that from the census.
Statements this module does not read (`match`, `type`) give None, and the
caller walks the block in full.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

__all__ = ["BlockTargets", "block_targets"]


class BlockTargets:
    """Names bound, declared global or nonlocal, and the functions defined, in source order."""

    def __init__(self) -> None:
        self.writes: set[str] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.functions: list[gast.FunctionDef] = []  # not those inside classes or other functions

    def block(self, stmts: list[gast.stmt]) -> bool:
        """Read `stmts` and the blocks nested in them; False at a statement this module does not read."""
        writes = self.writes
        for stmt in stmts:
            kind = type(stmt)
            if kind in _BINDING_NOTHING:
                continue
            if kind is gast.Assign:  # the commonest statements, read without a call
                for target in stmt.targets:
                    if type(target) is gast.Name:
                        writes.add(target.id)
                    else:
                        self.target(target)
                continue
            reader = _READERS.get(kind)
            if reader is None or reader(self, stmt) is False:
                return False
        return True

    def target(self, node: gast.expr) -> None:
        kind = type(node)
        if kind is gast.Name:
            self.writes.add(node.id)
        elif kind is gast.Tuple or kind is gast.List:
            for elt in node.elts:
                self.target(elt)
        elif kind is gast.Starred:
            self.target(node.value)
        # an attribute or subscript target binds no name

    def _one_target(self, stmt: gast.AugAssign | gast.AnnAssign) -> None:
        self.target(stmt.target)

    def _branches(self, stmt: gast.If | gast.While) -> bool:
        return self.block(stmt.body) and self.block(stmt.orelse)

    def _for(self, stmt: gast.For | gast.AsyncFor) -> bool:
        self.target(stmt.target)
        return self.block(stmt.body) and self.block(stmt.orelse)

    def _with(self, stmt: gast.With | gast.AsyncWith) -> bool:
        for item in stmt.items:
            if item.optional_vars is not None:
                self.target(item.optional_vars)
        return self.block(stmt.body)

    def _try(self, stmt: gast.Try) -> bool:
        if not self.block(stmt.body):
            return False
        for handler in stmt.handlers:
            if handler.name is not None:
                self.target(handler.name)
            if not self.block(handler.body):
                return False
        return self.block(stmt.orelse) and self.block(stmt.finalbody)

    def _definition(self, stmt: gast.FunctionDef | gast.AsyncFunctionDef | gast.ClassDef) -> None:
        self.writes.add(stmt.name)
        if type(stmt) is gast.FunctionDef:
            self.functions.append(stmt)

    def _delete(self, stmt: gast.Delete) -> None:
        for target in stmt.targets:
            self.target(target)

    def _import(self, stmt: gast.Import | gast.ImportFrom) -> None:
        for alias in stmt.names:
            self.writes.add((alias.asname or alias.name).split(".")[0])

    def _global(self, stmt: gast.Global) -> None:
        self.globals.update(stmt.names)

    def _nonlocal(self, stmt: gast.Nonlocal) -> None:
        self.nonlocals.update(stmt.names)


# statements that bind no name (without `:=`)
_BINDING_NOTHING = frozenset({gast.Expr, gast.Return, gast.Pass, gast.Break, gast.Continue, gast.Raise, gast.Assert})
_READERS: dict[type, Callable[[BlockTargets, gast.stmt], bool | None]] = {
    gast.AugAssign: BlockTargets._one_target,
    gast.AnnAssign: BlockTargets._one_target,
    gast.If: BlockTargets._branches,
    gast.While: BlockTargets._branches,
    gast.For: BlockTargets._for,
    gast.AsyncFor: BlockTargets._for,
    gast.With: BlockTargets._with,
    gast.AsyncWith: BlockTargets._with,
    gast.Try: BlockTargets._try,
    **dict.fromkeys((gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef), BlockTargets._definition),
    gast.Delete: BlockTargets._delete,
    gast.Import: BlockTargets._import,
    gast.ImportFrom: BlockTargets._import,
    gast.Global: BlockTargets._global,
    gast.Nonlocal: BlockTargets._nonlocal,
}


def block_targets(stmts: list[gast.stmt]) -> BlockTargets | None:
    """The bindings of `stmts` (which must hold no `:=`), or None where a full walk must answer."""
    found = BlockTargets()
    return found if found.block(stmts) else None
