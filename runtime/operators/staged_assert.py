"""Staged `assert` on a Tensor condition: checked every time the graph runs.

The message is evaluated once while tracing (as the converter's lambda
allows); a failing check raises InvalidArgumentError naming the user's line
(with its source text) and the message when the graph runs. A message that
holds tensors (`assert x > 0, ("bad x", x)`) shows their run-time values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.ir.origin import user_origin
from runtime.operators.staged_condition import require_one_value
from runtime.tracing.frontend import get_frontend

__all__ = ["staged_assert"]


def staged_assert(expression: Any, message: Callable[[], object] | None) -> None:
    """Record an assert op for a Tensor condition."""
    origin = user_origin()
    frontend = get_frontend(expression)
    require_one_value(frontend.type_of(expression), origin, "the condition", "assert")
    shown = None if message is None else message()
    if shown is not None and not isinstance(shown, str) and not _holds_staged(shown, frontend):
        shown = str(shown)
    frontend.stage_assert(expression, "" if shown is None else shown, origin)


def _holds_staged(value: Any, frontend: Any) -> bool:
    """A message with tensors in it is kept whole: the graph shows their run-time values."""
    if isinstance(value, (tuple, list)):
        return any(_holds_staged(v, frontend) for v in value)
    if isinstance(value, dict):
        return any(_holds_staged(v, frontend) for v in value.values())
    return frontend.is_staged(value)
