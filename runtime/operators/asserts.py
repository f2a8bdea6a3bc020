"""assert_stmt: `assert test, msg`; a Tensor test stages an assert checked at run time."""

from __future__ import annotations

from collections.abc import Callable

from runtime.ir.user_frames import note_user_code
from runtime.operators.within import traced_within
from runtime.tracing.staged import is_staged

__all__ = ["assert_stmt"]


def assert_stmt(
    expression: object, message: Callable[[], object] | None = None, within: tuple[str, int] | None = None
) -> None:
    """`assert expression, message()`; a Tensor stages an assert (traced `within` a try/with)."""
    try:
        if is_staged(expression):
            from runtime.operators.staged_assert import staged_assert

            with traced_within(within, "assert"):
                staged_assert(expression, message)
            return
        if not expression:
            if message is None:
                raise AssertionError
            raise AssertionError(message())
    except Exception as error:
        note_user_code(error)
        raise

