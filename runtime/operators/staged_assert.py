"""Staged `assert` on a Tensor condition: checked every time the graph runs.

The message is evaluated once while tracing (as the converter's lambda
allows); a failing check raises InvalidArgumentError naming the user's line
(with its source text) and the message when the graph runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.backend import get_backend
from runtime.origin import user_origin

__all__ = ["staged_assert"]


def staged_assert(expression: Any, message: Callable[[], object] | None) -> None:
    """Record an assert op for a Tensor condition."""
    origin = user_origin()
    text = "" if message is None else str(message())
    get_backend(expression).stage_assert(expression, text, origin)
