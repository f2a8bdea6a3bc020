"""The state functions of a statement that carries no names.

Converted code passes None as `get_state`/`set_state` when an if or a loop
carries nothing, so Python mode builds no closures for them; a staged path
gets these two instead.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["state_functions"]


def _no_state() -> tuple:
    return ()


def _ignore_state(values: tuple) -> None:
    """Nothing to rebind."""


def state_functions(
    get_state: Callable[[], tuple] | None, set_state: Callable[[tuple], None] | None
) -> tuple[Callable[[], tuple], Callable[[tuple], None]]:
    """The pair a staged if or loop calls: the given functions, or no-ops where None was passed."""
    return get_state or _no_state, set_state or _ignore_state
