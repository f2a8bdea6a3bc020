"""and_, or_, not_: Python's short-circuit semantics; logical ops on Tensors.

`a and b` becomes `ag__.and_(a, lambda: b)`: `a` is evaluated first, as
Python does, `b` only when Python would evaluate it, and the result is the
operand Python returns.
A bool operand, the common case in Python mode, is recognised by identity
before any isinstance check.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.ir.user_frames import note_user_code
from runtime.operators.within import traced_within
from runtime.tracing.staged import is_staged

__all__ = ["and_", "or_", "not_"]


def and_(left: object, b: Callable[[], object], within: tuple[str, int] | None = None) -> object:
    """`left and b()`; a Tensor `left` stages a cond (traced `within` a try/with)."""
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


def or_(left: object, b: Callable[[], object], within: tuple[str, int] | None = None) -> object:
    """`left or b()`; a Tensor `left` stages a cond (traced `within` a try/with)."""
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
