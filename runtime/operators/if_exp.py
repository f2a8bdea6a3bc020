"""if_exp: `a if c else b`, lazy in both modes; a Tensor condition stages a cond."""

from __future__ import annotations

import functools
from collections.abc import Callable

from runtime.ir.user_frames import note_user_code
from runtime.operators.within import traced_within
from runtime.tracing.staged import is_staged

__all__ = ["if_exp", "if_exp_chain"]


def if_exp(
    cond: object,
    if_true: Callable[[], object],
    if_false: Callable[[], object],
    expr_repr: str,
    within: tuple[str, int] | None = None,
) -> object:
    """`if_true() if cond else if_false()`; a Tensor `cond` stages a cond (traced `within` a try/with)."""
    try:
        if cond is True:
            return if_true()
        if cond is False:
            return if_false()
        if is_staged(cond):
            from runtime.operators.staged_if_exp import staged_if_exp

            with traced_within(within, "conditional expression"):
                return staged_if_exp(cond, if_true, if_false, expr_repr)
        return if_true() if cond else if_false()
    except Exception as error:
        note_user_code(error)
        raise



def if_exp_chain(*arms: object, within: tuple[str, int] | None = None) -> object:
    """`a if c else b if d else e` as one call: `arms` are (test, value, text) triples, then the last value.

    The tests and values are functions, called in Python's order: each test
    until one is true, then its value. A Tensor test stages a cond whose false
    branch holds the rest of the chain, as nested `if_exp` calls would.
    """
    return _chain_from(arms, 0, within)


def _chain_from(arms: tuple, start: int, within: tuple[str, int] | None) -> object:
    try:
        for index in range(start, len(arms) - 1, 3):
            cond = arms[index]()
            if is_staged(cond):
                if_false = functools.partial(_chain_from, arms, index + 3, within)
                return if_exp(cond, arms[index + 1], if_false, arms[index + 2], within=within)
            if cond:
                return arms[index + 1]()
        return arms[-1]()
    except Exception as error:
        note_user_code(error)
        raise
