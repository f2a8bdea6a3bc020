"""Staged `and`, `or`, `not` on Tensors.

`a and b` with a Tensor `a` is staged as a cond, `b if a else a` (and
`a or b` as `a if a else b`): the right side is traced inside the branch
that needs it, so its ops — and any effects in it, such as an assert, a
print or a read past the end of an array guarded by the left side — run only
when Python would evaluate it. A plain `np.logical_and` would evaluate both
sides every time; the cond is the faithful choice, and a right side without
effects costs the same after the optimiser. Both sides must have the same
dtype (a Python bool on the right is fine: it becomes a constant).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.operators.staged_if_exp import staged_if_exp

__all__ = ["staged_and", "staged_or", "staged_not"]


def staged_and(left: Any, right: Callable[[], object]) -> object:
    """`left and right()` for a Tensor `left`: right() is traced under left's true branch."""
    return staged_if_exp(left, lambda: _as_like(right(), left), lambda: left, "and")


def staged_or(left: Any, right: Callable[[], object]) -> object:
    """`left or right()` for a Tensor `left`: right() is traced under left's false branch."""
    return staged_if_exp(left, lambda: left, lambda: _as_like(right(), left), "or")


def staged_not(value: Any) -> Any:
    """`not value` for a Tensor: an elementwise logical not."""
    return np.logical_not(value)


def _as_like(value: object, left: Any) -> object:
    """A Python bool on the right of a bool Tensor: the same dtype, so the branches agree."""
    if isinstance(value, (bool, np.bool_)) and left.dtype == np.bool_:
        return np.bool_(value)
    return value
