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

An early-returning `if` takes the rest of the block as its `else:`; returns
inside loops set `do_return`, stop the loop and guard what follows.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import BLOCK_FIELDS
from autograph.converters.context import Context
from autograph.converters.guards import JumpLowering, contains_jump, without
from autograph.source.origins import inherit_location
from autograph.source.templates import constant, load_name, replace

__all__ = ["transform", "always_returns"]

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


def _absorb_rest(block: list[gast.stmt]) -> list[gast.stmt]:
    """`if c: ...return` followed by more code: the rest runs at the end of the if's else branch.

    Behind an `elif` chain it reaches the last test's `else:`, so a chain of
    early returns needs no `do_return` flag and no guard after it.
    """
    for index, stmt in enumerate(block):
        for field in _NESTED_BLOCKS:
            inner = getattr(stmt, field, None)
            if inner and not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                setattr(stmt, field, _absorb_rest(inner))
        rest = block[index + 1 :]
        if not isinstance(stmt, gast.If) or not rest:
            continue
        if always_returns(stmt.body) and not always_returns(stmt.orelse):
            stmt.orelse = _absorb_rest(stmt.orelse + rest)
            return block[: index + 1]
        if always_returns(stmt.orelse) and not always_returns(stmt.body):
            stmt.body = _absorb_rest(stmt.body + rest)
            return block[: index + 1]
    return block


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
    node.body = _absorb_rest(node.body)
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
    if lowering.guards or loops:
        prologue = replace("do_return = False", do_return=do_return)
        ctx.flag_stores += prologue + flag_sets
    else:  # nothing reads the flag
        body = without(body, flag_sets)
        prologue = []
    if not ends_in_return:
        prologue += replace("retval = None", retval=retval)
    epilogue = replace("return retval", retval=retval)
    docstring = body[:1] if _is_docstring(body[0]) else []
    inherit_location(prologue, node.body[len(docstring)])
    inherit_location(epilogue, node.body[-1])
    # the docstring stays the first statement: it is the function's __doc__ and what a reader sees first
    node.body = docstring + prologue + body[len(docstring) :] + epilogue
    return node


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


