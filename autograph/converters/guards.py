"""Guards: lowering a jump (break, continue, return) into a flag and guarded code.

    while x > 0:                    break_ = False
        if x == 3:                  while not break_ and x > 0:
            break          ->           if x == 3:
        x -= 1                              break_ = True
                                        if not break_:
                                            x -= 1

The jump statement becomes whatever the converter says (`break_ = True`);
the statements after anything that may jump run under `if not <flag>:`.
With `rest_into_else`, an `if` whose body ends in the jump takes them into
its `else:` instead (and one whose `else:` ends in it, into its body), which
needs no flag test (see `_if_ending_in_jump`):

    for x in xs:                    for x in xs:
        if x < 0:                       if x < 0:
            continue         ->             continue_ = True   # dead: dropped later
        total += x                      else:
                                            total += x
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import gast

from autograph.analysis import Analyses
from autograph.analysis.traversal import BLOCK_FIELDS
from autograph.source.origins import inherit_location
from autograph.source.templates import replace

__all__ = ["JumpLowering", "contains_jump", "drop_dead_flags", "loops_in_order", "without"]

_LOOPS = (gast.For, gast.While, gast.AsyncFor)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_BLOCK_FIELDS = ("body", "orelse", "finalbody")
_SCOPE_CLASSES = frozenset(_SCOPES)
_LOOP_CLASSES = frozenset(_LOOPS)


def contains_jump(node: gast.AST, jump: type, into_loops: bool) -> bool:
    """Whether `node` holds a `jump` statement that belongs to the enclosing construct.

    Jumps are statements, which live only in statement blocks (and the except
    handlers and match cases holding them): only blocks are read, never an expression.
    """
    if isinstance(node, _SCOPES):
        return False  # a nested function's jumps are its own
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, jump):
            return True
        for field in BLOCK_FIELDS[type(current)]:
            block = getattr(current, field, None)
            if type(block) is not list:
                continue
            for child in block:
                kind = type(child)
                if kind in _SCOPE_CLASSES:
                    continue
                if not into_loops and kind in _LOOP_CLASSES:
                    stack.extend(child.orelse)  # a loop's else: belongs to the enclosing loop
                    continue
                stack.append(child)
    return False


def loops_in_order(block: list[gast.stmt]) -> list[gast.stmt]:
    """The function's own loops in source order, outer before inner (nested defs skipped)."""
    out: list[gast.stmt] = []
    for stmt in block:
        if isinstance(stmt, _SCOPES):
            continue
        if isinstance(stmt, _LOOPS):
            out.append(stmt)
        for field in _BLOCK_FIELDS:
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                out += loops_in_order(inner)
        for child in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
            out += loops_in_order(child.body)
    return out


@dataclass
class JumpLowering:
    """Rewrites one kind of jump in a block: `replace_jump(stmt)` gives its replacement."""

    jump: type
    flag: str
    replace_jump: Callable[[gast.stmt], list[gast.stmt]]
    into_loops: bool = False
    on_loop: Callable[[gast.stmt], None] | None = None
    guards: int = 0  # how many `if not flag` guards were made
    rest_into_else: bool = False

    def block(self, stmts: list[gast.stmt]) -> list[gast.stmt]:
        """The block with its jumps lowered and the code after them guarded."""
        out: list[gast.stmt] = []
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, self.jump):
                out.extend(self.replace_jump(stmt))
                return out  # the rest is unreachable
            if not contains_jump(stmt, self.jump, self.into_loops):
                out.append(stmt)
                continue
            if self.rest_into_else and self._if_ending_in_jump(stmt):
                rest = stmts[index + 1 :]
                if isinstance(stmt.body[-1], self.jump):
                    stmt.body, stmt.orelse = self.block(stmt.body), self.block(stmt.orelse + rest)
                else:
                    stmt.body, stmt.orelse = self.block(stmt.body + rest), self.block(stmt.orelse)
                out.append(stmt)
                return out
            self._lower_nested(stmt)
            out.append(stmt)
            rest = stmts[index + 1 :]
            if rest:
                out.extend(self.guard(self.block(rest)))
            return out
        return out

    def _if_ending_in_jump(self, stmt: gast.stmt) -> bool:
        """An `if` one of whose branches jumps at its end: what follows it runs only on the other."""
        return isinstance(stmt, gast.If) and (
            isinstance(stmt.body[-1], self.jump) or (bool(stmt.orelse) and isinstance(stmt.orelse[-1], self.jump))
        )

    def guard(self, stmts: list[gast.stmt]) -> list[gast.stmt]:
        if not stmts:
            return []
        self.guards += 1
        guarded = replace("if not flag:\n    body", flag=self.flag, body=stmts)
        inherit_location(guarded, stmts[0])
        return guarded

    def _lower_nested(self, stmt: gast.stmt) -> None:
        if isinstance(stmt, _LOOPS) and self.on_loop is not None:
            self.on_loop(stmt)
        # A try's else: runs only when its body ran to the end, so not after a jump out of it.
        body_jumps = isinstance(stmt, gast.Try) and any(contains_jump(s, self.jump, self.into_loops) for s in stmt.body)
        for field in _BLOCK_FIELDS:
            block = getattr(stmt, field, None)
            if block:
                setattr(stmt, field, self.block(block))
        if body_jumps and stmt.orelse:
            stmt.orelse = self.guard(stmt.orelse)
        for handler in getattr(stmt, "handlers", ()):
            handler.body = self.block(handler.body)
        for case in getattr(stmt, "cases", ()):
            case.body = self.block(case.body)


def drop_dead_flags(fn: gast.FunctionDef, flag_stores: list[gast.stmt], analyses: Analyses) -> None:
    """Remove flag assignments nothing reads (`continue_ = True` as a loop's last statement)."""
    liveness, cfg = analyses.liveness, analyses.cfg
    dead = [
        store
        for store in flag_stores
        if store in cfg.entry_of and store.targets[0].id not in liveness.after(cfg.entry_of[store])
    ]
    if dead:
        fn.body = without(fn.body, dead) or [gast.Pass()]


def without(block: list[gast.stmt], dead: Iterable[gast.stmt]) -> list[gast.stmt]:
    """`block` without the statements of `dead`, at any depth (emptied blocks get `pass`)."""
    # by identity: held in the dict, no dead node's id can be taken by another node meanwhile
    return _without(block, {id(s): s for s in dead})


def _without(block: list[gast.stmt], dead: dict[int, gast.stmt]) -> list[gast.stmt]:
    out = []
    for stmt in block:
        if id(stmt) in dead:
            continue
        if not isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            for field in _BLOCK_FIELDS:
                inner = getattr(stmt, field, None)
                if inner:
                    setattr(stmt, field, _without(inner, dead) or [gast.Pass()])
            for child in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
                child.body = _without(child.body, dead) or [gast.Pass()]
        out.append(stmt)
    return out
