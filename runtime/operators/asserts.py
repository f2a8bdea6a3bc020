"""assert_stmt: `assert test, msg`; a Tensor test stages an assert checked at run time."""

from __future__ import annotations

from collections.abc import Callable

from runtime.tensor import Tensor

__all__ = ["assert_stmt"]


def assert_stmt(expression: object, message: Callable[[], object] | None = None) -> None:
    if isinstance(expression, Tensor):
        from runtime.operators.staged_assert import staged_assert

        staged_assert(expression, message)
        return
    if not expression:
        if message is None:
            raise AssertionError
        raise AssertionError(message())
