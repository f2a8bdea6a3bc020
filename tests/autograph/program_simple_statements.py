"""Simple statements of the program generator: the ones that neither nest nor jump.

`Where` says what may be generated at a point of `f`: jumps only inside loops,
returns only where control may leave, list changes only on lists no loop is
iterating. `simple_statement` writes one assignment, print, assert, del, call,
append, unpacking, item assignment or multi-line literal there (program_statements.py writes the
compound ones around them).
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.autograph.program_expressions import (
    CLOSURE_NAMES,
    FLOAT_NAMES,
    INT_NAMES,
    LIST_NAMES,
    Expressions,
    Scope,
    kind_of,
)
from tests.autograph.program_literals import multiline_literal

__all__ = ["LOCALS", "Where", "simple_statement"]

LOCALS = INT_NAMES + FLOAT_NAMES + LIST_NAMES  # what `f` may bind, and `nonlocal` declare


@dataclass(frozen=True)
class Where:
    """Where a statement is generated: loop nesting, function, lists in use."""

    depth: int = 0
    in_loop: bool = False
    in_helper: bool = False
    in_try: bool = False
    iterated: frozenset[str] = frozenset()
    assignable: tuple[str, ...] = LOCALS
    may_leave: bool = True

    def nested(self, **changes) -> Where:
        values = {**self.__dict__, "depth": self.depth + 1, **changes}
        return Where(**values)



def simple_statement(ex: Expressions, scope: Scope, where: Where, kind: str = "assign") -> str:
    """One statement of `kind` that neither nests nor jumps; an assignment when `kind`
    has nothing to work on (no list to append to, no name to delete)."""
    if kind == "print":
        return f"print({ex.tag('p')}, {ex.of_kind(ex.pick(['int', 'float', 'list']), scope)})"
    if kind == "assert":
        message = ex.pick(["", f", {ex.tag('a')}", f", log({ex.tag('m')}, 0)"])
        return f"assert {ex.bool_(scope)}{message}"
    if kind == "del":
        names = sorted(scope.defined & set(where.assignable))
        if names:
            name = ex.pick(names)
            scope.unbind(name)
            return f"del {name}"
    mutable = sorted(n for n in scope.defined if kind_of(n) == "list"
                     and n in where.assignable and n not in where.iterated)
    if kind == "setitem" and (lists := sorted(n for n in scope.defined if kind_of(n) == "list")):
        return _setitem(ex, ex.pick(lists), scope)
    if kind == "closure":  # its free names are read when it is called: late binding
        name = ex.pick(CLOSURE_NAMES)
        value = ex.int_(scope, 1)
        scope.bind(name)
        return f"{name} = lambda: {value}"
    if kind == "text":  # a multi-line literal: its continuation lines keep their blanks
        literal = multiline_literal(ex, [ex.int_(scope, 1)])
        if ex.chance(50):
            return f"print({ex.tag('s')}, {literal})"
        name = ex.pick([n for n in where.assignable if kind_of(n) == "int"])
        scope.bind(name)
        return f"{name} = len({literal})"
    if kind == "call" and scope.helpers:
        return f"{ex.pick(scope.helpers)}({ex.int_(scope, 1)})"
    if kind == "append" and mutable:
        return f"{ex.pick(mutable)}.append({ex.int_(scope)})"
    if kind == "unpack":
        ints = [n for n in where.assignable if kind_of(n) == "int"]
        first, second = ex.pick(ints), ex.pick(ints)
        form = ex.weighted([("pair", 6), ("chain", 1), ("star", 1)])
        rests = [n for n in where.assignable if kind_of(n) == "list"]
        if form == "chain":
            value = ex.int_(scope)
            scope.bind(first)
            scope.bind(second)
            return f"{first} = {second} = {value}"
        if form == "star" and rests:  # may raise ValueError: fewer than one item
            rest, value = ex.pick(rests), ex.list_(scope)
            scope.bind(first)
            scope.bind(rest)
            return f"{first}, *{rest} = {value}"
        if first != second:
            values = f"{ex.int_(scope)}, {ex.int_(scope)}"
            if {first, second} <= scope.defined and ex.chance(50):
                values = f"{second}, {first}"
            scope.bind(first)
            scope.bind(second)
            return f"{first}, {second} = {values}"
    if kind == "augassign":
        names = sorted(n for n in scope.defined & set(where.assignable)
                       if kind_of(n) != "list" or n not in where.iterated)
        if names:
            return _augassign(ex, ex.pick(names), scope)
    return _assign(ex, scope, where)

def _assign(ex: Expressions, scope: Scope, where: Where) -> str:
    name = ex.pick(where.assignable)
    value = ex.of_kind(kind_of(name), scope)
    if value in LIST_NAMES:
        value = f"list({value})"
    scope.bind(name)
    return f"{name} = {value}"

def _augassign(ex: Expressions, name: str, scope: Scope) -> str:
    kind = kind_of(name)
    if kind == "list":
        return f"{name} += [{ex.int_(scope, 1)}]"
    if kind == "float":
        return f"{name} {ex.pick(['+=', '-=', '*='])} {ex.float_(scope, 1)}"
    op = ex.pick(["+=", "-=", "*=", "//=", "%="])
    value = str(ex.num(1, 3)) if op == "*=" else ex.int_(scope, 1)
    return f"{name} {op} {value}"

def _setitem(ex: Expressions, name: str, scope: Scope) -> str:
    """An item assignment: never changes a list's length, so it is safe
    even on a list a loop iterates over."""
    index = ex.pick(["0", "-1", ex.int_(scope, 0)])
    op = ex.pick(["=", "+=", "-="])
    return f"{name}[{index}] {op} {ex.int_(scope, 1)}"
