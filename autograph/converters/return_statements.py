"""return_statements: one exit per function, with a `retval` and (only if needed) a `do_return` flag.

Branch and loop bodies become nested functions, where `return` would leave the
wrong function, so every `return` that is not the function's plain last
statement is rewritten:

    def f(x):                        def f(x):
        if x > 0:                        if x > 0:
            return x          ->             retval = x
        return -x                        else:
                                             retval = -x
                                         return retval

An early-returning `if` takes the rest of the block as its `else:`; an `if`
that returns on some paths through it, not from a loop, followed by a lone
`return` gets that return copied to the end of each branch that may fall
through (only one copy runs), so no flag is needed either:

    if x < 0:                        if x < 0:
        if y > 0:                        if y > 0:
            return 2          ->             return 2
    return 3                             return 3
                                     else:
                                         return 3

Returns inside loops set `do_return`, stop the loop and guard what follows;
the flag is set to False in the innermost block that holds all its uses.
"""

from __future__ import annotations

import copy

import gast

from autograph.analysis.traversal import BLOCK_FIELDS
from autograph.converters.context import Context
from autograph.converters.guards import JumpLowering, contains_jump, without
from autograph.source.origins import inherit_location
from autograph.source.templates import constant, load_name, replace

__all__ = ["transform", "always_returns", "absorb_rest"]

_NESTED_BLOCKS = ("body", "orelse", "finalbody")
_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef})


def always_returns(block: list[gast.stmt]) -> bool:
    """Whether no path through `block` runs past its end (syntactically): each returns first.

    A `while True:` without a `break` ends only by a return (or an exception),
    so code after it never runs and the function never falls off its end there.
    """
    if not block:
        return False
    last = block[-1]
    if isinstance(last, gast.Return):
        return True
    if isinstance(last, gast.If):
        return always_returns(last.body) and always_returns(last.orelse)
    if isinstance(last, gast.While) and _is_true(last.test):
        return not any(contains_jump(s, gast.Break, into_loops=False) for s in last.body)
    return False


def _is_true(test: gast.expr) -> bool:
    return type(test) is gast.Constant and test.value is True


def absorb_rest(block: list[gast.stmt], guarded: bool = False) -> list[gast.stmt]:
    """`if c: ...return` followed by more code: the rest runs at the end of the if's else branch.

    Behind an `elif` chain it reaches the last test's `else:`, so a chain of
    early returns needs no `do_return` flag and no guard after it. `guarded`:
    the block is inside a try or with, whose expressions `catching` marked by
    identity: a lone return is not copied there (its copy would not be marked).
    """
    for index, stmt in enumerate(block):
        inside = guarded or isinstance(stmt, (gast.Try, gast.With, gast.AsyncWith))
        for field in _NESTED_BLOCKS:
            inner = getattr(stmt, field, None)
            if inner and not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                setattr(stmt, field, absorb_rest(inner, inside))
        rest = block[index + 1 :]
        if not isinstance(stmt, gast.If) or not rest:
            continue
        # what follows a return of the block never runs, but may make a name local: it stays here
        ends = next((i + 1 for i, s in enumerate(rest) if type(s) is gast.Return), len(rest))
        rest, dead = rest[:ends], rest[ends:]
        if always_returns(stmt.body) and not always_returns(stmt.orelse):
            stmt.orelse = absorb_rest(stmt.orelse + rest, guarded)
            return block[: index + 1] + dead
        if always_returns(stmt.orelse) and not always_returns(stmt.body):
            stmt.body = absorb_rest(stmt.body + rest, guarded)
            return block[: index + 1] + dead
        if not guarded and _lone_return(rest) and _returns_outside_loops(stmt):
            stmt.body = absorb_rest(stmt.body + rest)
            stmt.orelse = absorb_rest(stmt.orelse + [_copy(rest[0])])
            return block[: index + 1] + dead
    return block


_COPIED_NODES = 24  # a longer returned expression is not copied: the flag costs fewer lines than its copy


def _lone_return(rest: list[gast.stmt]) -> bool:
    """`return <value>` alone, with a value short enough to write twice and nothing a copy changes
    (a `:=` or a `yield` in it would still run once, but a lambda or comprehension is a new scope)."""
    if len(rest) != 1 or type(rest[0]) is not gast.Return:
        return False
    nodes = list(gast.walk(rest[0]))
    return len(nodes) <= _COPIED_NODES and not any(
        isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await, gast.Lambda, gast.ListComp,
                       gast.SetComp, gast.DictComp, gast.GeneratorExp)) for n in nodes)


def _returns_outside_loops(stmt: gast.If) -> bool:
    """Whether `stmt` returns on some path (not from inside a loop, a try or a with: copying the
    return there would not remove the flag), and only from its own blocks of ifs."""
    found = False
    stack: list[gast.stmt] = stmt.body + stmt.orelse
    while stack:
        inner = stack.pop()
        kind = type(inner)
        if kind is gast.Return:
            found = True
        elif kind is gast.If:
            stack += inner.body + inner.orelse
        elif kind not in _SCOPES and contains_jump(inner, gast.Return, into_loops=True):
            return False  # a return in a loop, try or with
    return found


def _copy(stmt: gast.stmt) -> gast.stmt:
    """A copy of `stmt` with its own nodes (later passes rewrite trees in place) and its lines."""
    return copy.deepcopy(stmt)


def _returns(node: gast.FunctionDef) -> int:
    """The returns of the function's own code: statements, so only statement blocks are read."""
    count = 0
    stack = list(node.body)
    while stack:
        stmt = stack.pop()
        kind = type(stmt)
        if kind is gast.Return:
            count += 1
        elif kind not in _SCOPES:
            for field in BLOCK_FIELDS[kind]:
                block = getattr(stmt, field, None)
                if type(block) is list:
                    stack.extend(block)
    return count


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Give the function a single exit, unless its only return is its last statement."""
    count = _returns(node)
    if count == 0 or (count == 1 and isinstance(node.body[-1], gast.Return)):
        return node
    node.body = absorb_rest(node.body)
    if count == 1 and isinstance(node.body[-1], gast.Return):
        return node
    ends_in_return = always_returns(node.body)
    do_return = ctx.namespace.new("do_return")
    retval = ctx.namespace.new("retval")
    flag_sets: list[gast.stmt] = []  # `do_return = True`; dropped later where nothing reads them
    loops: list[gast.stmt] = []

    def lower_return(stmt: gast.Return) -> list[gast.stmt]:
        value = stmt.value if stmt.value is not None else constant(None)
        # The value first: if computing it raises inside a try, the handler runs and the
        # function goes on, so the flag must not be set yet.
        new = replace("retval = value\ndo_return = True", do_return=do_return, retval=retval, value=value)
        inherit_location(new, stmt)
        flag_sets.append(new[1])
        return new

    lowering = JumpLowering(gast.Return, do_return, lower_return, into_loops=True, on_loop=loops.append)
    body = lowering.block(node.body)
    for loop in loops:
        _stop_loop(loop, do_return, ctx)
    prologue = []
    if lowering.guards or loops:
        start = replace("do_return = False", do_return=do_return)
        ctx.flag_stores += start + flag_sets
        home, index = _flag_home(body, do_return, loops)
        if home is body:
            prologue = start
        else:
            inherit_location(start, home[index])
            home[index:index] = start
    else:  # nothing reads the flag
        body = without(body, flag_sets)
    if not ends_in_return:
        prologue += replace("retval = None", retval=retval)
    epilogue = replace("return retval", retval=retval)
    docstring = body[:1] if _is_docstring(body[0]) else []
    inherit_location(prologue, node.body[len(docstring)])
    inherit_location(epilogue, node.body[-1])
    # the docstring stays the first statement: it is the function's __doc__ and what a reader sees first
    node.body = docstring + prologue + body[len(docstring) :] + epilogue
    return node


def _flag_home(body: list[gast.stmt], flag: str, loops: list[gast.stmt]) -> tuple[list[gast.stmt], int]:
    """The innermost block of ifs that holds every read of the flag, and its first statement that
    reads or sets it (where the flag starts False).

    The ifs around that block then neither carry the flag nor see it: in
    `if n < 2: return False` `else: <a loop with a return>` it is a name of
    the else branch alone. A set outside the block is dead: after it, on any
    path, only the guards and loop tests inside the block could read it, and
    the path from it never enters the block. (Statements that are not ifs, and
    functions with try or with blocks, whose jumps read flags later, are not
    entered: then the flag starts where it always did, at the top.)
    """
    loop_ids = {id(loop) for loop in loops}  # a for loop's extra test reads the flag once it is made

    def reads(node: gast.AST) -> bool:
        return any((type(n) is gast.Name and n.id == flag and type(n.ctx) is gast.Load) or id(n) in loop_ids
                   for n in gast.walk(node))

    if any(type(n) in (gast.Try, gast.With, gast.AsyncWith) or type(n).__name__ == "TryStar"
           for stmt in body for n in gast.walk(stmt)):
        return body, 0
    block = body
    while True:
        found = [i for i, stmt in enumerate(block) if reads(stmt)]
        if len(found) != 1 or type(block[found[0]]) is not gast.If:
            break
        stmt = block[found[0]]
        inner = [b for b in (stmt.body, stmt.orelse) if any(reads(s) for s in b)]
        if reads(stmt.test) or len(inner) != 1:
            break
        block = inner[0]
    if block is body:
        return body, 0
    first = next(i for i, stmt in enumerate(block)
                 if reads(stmt) or any(type(n) is gast.Name and n.id == flag for n in gast.walk(stmt)))
    return block, first


def _is_docstring(stmt: gast.stmt) -> bool:
    return type(stmt) is gast.Expr and type(stmt.value) is gast.Constant and isinstance(stmt.value.value, str)


def _stop_loop(loop: gast.stmt, flag: str, ctx: Context) -> None:
    if isinstance(loop, gast.While):
        stop = gast.UnaryOp(op=gast.Not(), operand=load_name(flag))
        # `while True:` stops on the flag alone
        loop.test = stop if _is_true(loop.test) else gast.BoolOp(op=gast.And(), values=[stop, loop.test])
        inherit_location(loop.test, loop)
    else:
        ctx.loop_flags.setdefault(loop, []).append(flag)


