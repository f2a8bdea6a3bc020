"""Builtins in converted code that stage when given Tensors (len, range, int, ...).

`OVERRIDES` maps a builtin to its operator; `converted_call` calls the
operator instead of the builtin. Each operator falls back to the builtin when
no argument is staged, so Python mode is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["OVERRIDES"]

OVERRIDES: dict[object, Callable] = {}
