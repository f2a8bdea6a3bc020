"""if_exp: `a if c else b`, lazy in both modes; a Tensor condition stages a cond."""

from __future__ import annotations

from collections.abc import Callable

from runtime.ir.user_frames import note_user_code
from runtime.operators.within import traced_within
from runtime.tracing.staged import is_staged

__all__ = ["if_exp"]


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

