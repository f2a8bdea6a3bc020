"""and_, or_, not_: Python's short-circuit semantics; logical ops on Tensors.

`a and b` becomes `ag__.and_(a, lambda: b)`: `a` is evaluated first, as
Python does, `b` only when Python would evaluate it, and the result is the
operand Python returns.
A bool operand, the common case in Python mode, is recognised by identity
before any isinstance check.

A long chain comes as one call, `ag__.and_(a, lambda: b, lambda: c)`, the
same as `ag__.and_(a, lambda: ag__.and_(b(), lambda: c))`: operands are
evaluated left to right while the values are Python's, each tested once;
the first Tensor stages a cond whose branch holds the rest of the chain.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from runtime.ir.user_frames import note_user_code
from runtime.operators.within import traced_within
from runtime.tracing.staged import is_staged

__all__ = ["and_", "or_", "not_"]


def and_(left: object, b: Callable[[], object], *more: Callable[[], object], within: tuple[str, int] | None = None) -> object:
    """`left and b()`; a Tensor `left` stages a cond (traced `within` a try/with)."""
    if more:
        return _chain(and_, False, left, (b, *more), within)
    try:
        if left is True:
            return b()
        if left is False:
            return False
        if is_staged(left):
            from runtime.operators.staged_logical import staged_and

            with traced_within(within, "'and'"):
                return staged_and(left, b)
        return b() if left else left
    except Exception as error:
        note_user_code(error)
        raise


def or_(left: object, b: Callable[[], object], *more: Callable[[], object], within: tuple[str, int] | None = None) -> object:
    """`left or b()`; a Tensor `left` stages a cond (traced `within` a try/with)."""
    if more:
        return _chain(or_, True, left, (b, *more), within)
    try:
        if left is False:
            return b()
        if left is True:
            return True
        if is_staged(left):
            from runtime.operators.staged_logical import staged_or

            with traced_within(within, "'or'"):
                return staged_or(left, b)
        return left if left else b()
    except Exception as error:
        note_user_code(error)
        raise


def not_(a: object) -> object:
    """`not a`; a Tensor `a` stages a logical not."""
    try:
        if a is False:
            return True
        if a is True:
            return False
        if is_staged(a):
            from runtime.operators.staged_logical import staged_not

            return staged_not(a)
        return not a
    except Exception as error:
        note_user_code(error)
        raise


def _chain(
    operator: Callable[..., object], stops_on: bool, left: object,
    operands: tuple[Callable[[], object], ...], within: tuple[str, int] | None,
) -> object:
    """`left op operands[0]() op ...`, iteratively: Python stops at the first value whose truth is
    `stops_on` (False for and, True for or); a Tensor stages the rest inside its cond."""
    value = left
    try:
        for index, operand in enumerate(operands):
            if is_staged(value):
                rest = operands[index + 1 :]
                if not rest:
                    return operator(value, operand, within=within)
                return operator(value, functools.partial(_rest, operator, operand, rest, within), within=within)
            if bool(value) is stops_on:
                return value
            value = operand()
    except Exception as error:
        note_user_code(error)
        raise
    return value


def _rest(operator: Callable[..., object], first: Callable[[], object], rest: tuple, within: tuple[str, int] | None) -> object:
    """The chain after a Tensor operand: traced inside its cond's branch."""
    return operator(first(), *rest, within=within)
