"""conditional_returns: an `if` whose branches only return becomes one return of a conditional expression.

    def sign(x):                     def sign(x):
        if x > 0:                        return 1 if x > 0 else -1 if x < 0 else 0
            return 1
        elif x < 0:         ->
            return -1
        return 0

Python evaluates both the same way: the test once, then one of the values.
The conditional expressions pass then makes the call (`ag__.if_exp`, each
value in a lambda), which stages the same cond with the returned value as
its output. A function of such returns needs no `retval`, no state functions
and no branch functions, so it converts and runs faster (a helper called in
a loop runs about twice as fast) and reads as what it computes. The emitter
prints each value on a line of its own, mapped to its `return`'s line.

A chain is taken where each `if` holds a single `return` and its `else:`
(or the statements after it) returns too; an `if` without `else:` at the end
of the block has nothing to return otherwise and is left alone, as are
values that bind a name (`:=`) or yield, which a lambda would change, and
chains inside a try or with (their conditional expressions would need the
marks `catching` gives before this pass runs). Statements after the chain's
last `return` never run; they are kept, as they may still make a name local.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from autograph.converters.context import Context
from autograph.converters.expression_scope import binds_or_suspends
from autograph.converters.return_statements import absorb_rest
from autograph.source.templates import constant

__all__ = ["RETURNED", "transform"]

_LOOPS = (gast.For, gast.While)
RETURNED = "return"  # what the if_exp calls of these chains give where others give the condition's text


def transform(fn: gast.FunctionDef, ctx: Context) -> bool:
    """Rewrite the chains of `fn`'s own blocks (not those of try or with blocks); whether any was.

    The code after an early-returning if is moved into its branches first
    (return_statements.absorb_rest), so `if c: return a` then `return b` is
    a chain wherever it is nested."""
    fn.body = absorb_rest(fn.body)
    return _block(fn.body, ctx.returned)


def _block(block: list[gast.stmt], made: dict[int, gast.IfExp]) -> bool:
    """Rewrite the chains starting in `block` and in the blocks nested in its statements, inner
    ones first: a branch that becomes one return may complete a chain around it."""
    changed = False
    k = 0
    while k < len(block):
        stmt = block[k]
        if type(stmt) is gast.If:
            changed = _block(stmt.body, made) | changed
            changed = _block(stmt.orelse, made) | changed
            chain = _Chain(block, made)
            value = chain.returned(block, k, None)
            if value is not None:
                new = gast.Return(value=value)
                gast.copy_location(new, stmt)
                block[k : chain.end] = [new]
                changed = True
        elif isinstance(stmt, _LOOPS):
            changed = _block(stmt.body, made) | changed
            changed = _block(stmt.orelse, made) | changed
        k += 1
    return changed


class _Chain:
    """One chain of returning ifs, starting in `outer`; `end` is past the last statement of it there."""

    def __init__(self, outer: list[gast.stmt], made: dict[int, gast.IfExp]) -> None:
        self.outer = outer
        self.made = made
        self.end = 0

    def returned(
        self, block: list[gast.stmt], i: int, after: Callable[[], gast.expr | None] | None
    ) -> gast.expr | None:
        """What `block[i:]` returns, when it is a chain of returning ifs ending in a return.

        `after`: what runs when `block` (an `else:`) falls off its end; None for
        the outer block, whose end is not a return.
        """
        if i == len(block):
            return after() if after is not None else None
        if block is self.outer:
            self.end = max(self.end, i + 1)
        stmt = block[i]
        if type(stmt) is gast.Return:
            return _value(stmt)
        if type(stmt) is not gast.If or len(stmt.body) != 1 or type(stmt.body[0]) is not gast.Return:
            return None
        taken = _value(stmt.body[0])
        if taken is None:
            return None

        def rest() -> gast.expr | None:
            return self.returned(block, i + 1, after)

        otherwise = self.returned(stmt.orelse, 0, rest) if stmt.orelse else rest()
        if otherwise is None:
            return None
        choice = gast.IfExp(test=stmt.test, body=taken, orelse=otherwise)
        gast.copy_location(choice, stmt)
        self.made[id(choice)] = choice  # a chain that fails later leaves an unused entry: harmless
        return choice


def _value(stmt: gast.Return) -> gast.expr | None:
    """The value `stmt` returns, or None when a lambda cannot hold it (it binds a name or yields)."""
    if stmt.value is None:
        value = constant(None)
        gast.copy_location(value, stmt)
        return value
    return None if binds_or_suspends([stmt.value]) else stmt.value
