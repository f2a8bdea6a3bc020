"""if_stmt: an `if` statement, staged as a cond when its condition is a Tensor.

    if x > 0:              def if_body(): nonlocal y; y = x
        y = x              def else_body(): nonlocal y; y = -x
    else:           ->     ag__.if_stmt(x > 0, if_body, else_body,
        y = -x                          get_state, set_state, ('y',), 1)

An `if` without `else` passes None as `orelse`. A bool condition, the
common case in Python mode, is recognised before any isinstance check.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.tensor import Tensor

__all__ = ["if_stmt"]


def if_stmt(
    cond: object,
    body: Callable[[], None],
    orelse: Callable[[], None] | None,
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
    nouts: int,
) -> None:
    """Run `body` or `orelse`; a Tensor `cond` stages both as one cond."""
    if type(cond) is not bool and isinstance(cond, Tensor):
        from runtime.operators.staged_if import staged_if

        staged_if(cond, body, orelse or _nothing, get_state, set_state, names, nouts)
    elif cond:
        body()
    elif orelse is not None:
        orelse()


def _nothing() -> None:
    """The missing else branch, when a staged cond needs one to trace."""
