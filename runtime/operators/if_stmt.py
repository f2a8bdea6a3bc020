"""if_stmt: an `if` statement, staged as a cond when its condition is a Tensor.

    if x > 0:              def if_body(): nonlocal y; y = x
        y = x              def else_body(): nonlocal y; y = -x
    else:           ->     ag__.if_stmt(x > 0, if_body, else_body, ("y",))
        y = -x

An `if` without `else` passes None as `orelse`; `if c: continue` with code
after it (`if c: pass / else: rest` once lowered) passes None as `body`. The
staged path reads and rebinds the carried names through the branches'
closure cells (no_state), or through `get_state`/`set_state` when given. A bool
condition, the common case in Python mode, is recognised by identity before
any isinstance check, False first: an `elif` chain passes a False condition
at every level it skips, and the `if` of a loop that breaks, or of a
rarely taken branch, is False on most iterations.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.ir.user_frames import note_user_code
from runtime.operators.within import traced_within
from runtime.tracing.staged import is_staged
from runtime.tracing.tensor import Tensor

__all__ = ["if_stmt"]


def if_stmt(
    cond: object,
    body: Callable[[], None] | None,
    orelse: Callable[[], None] | None,
    names: tuple[str, ...] = (),
    nouts: int | None = None,
    get_state: Callable[[], tuple] | None = None,
    set_state: Callable[[tuple], None] | None = None,
    within: tuple[str, int] | None = None,
    unread: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
) -> None:
    """Run `body` or `orelse`; a Tensor `cond` stages both as one cond (traced `within` a try/with).

    The first `nouts` of `names` (all of them when None) are its outputs; the rest are
    names a branch reads first and binds, carried so that both branches see them.
    Converted code passes the options by keyword; none is keyword-only, since a missing
    keyword-only argument costs a dict lookup at every call, and an if in a loop body is
    called at every iteration.

    `unread`: names whose value after the true / false branch nothing reads, so
    a staged cond fills them with zeros where that branch leaves them unbound
    (the search idiom `if x[i] < 0: idx = i; break` in a loop with `else:`).
    """
    try:
        if cond is False:
            if orelse is not None:
                orelse()
        elif cond is True:
            if body is not None:
                body()
        elif is_staged(cond):
            _staged(cond, body, orelse, get_state, set_state, names, nouts, within, unread)
        elif cond:
            if body is not None:
                body()
        elif orelse is not None:
            orelse()
    except Exception as error:
        note_user_code(error)
        raise


def _staged(
    cond: Tensor,
    body: Callable[[], None] | None,
    orelse: Callable[[], None] | None,
    get_state: Callable[[], tuple] | None,
    set_state: Callable[[tuple], None] | None,
    names: tuple[str, ...],
    nouts: int | None,
    within: tuple[str, int] | None,
    unread: tuple[tuple[str, ...], tuple[str, ...]],
) -> None:
    """The staged half, kept out of if_stmt: its frame holds only the Python path's locals."""
    from runtime.operators.no_state import state_functions
    from runtime.operators.staged_if import staged_if

    with traced_within(within, "if"):
        staged_if(
            cond,
            body or _nothing,
            orelse or _nothing,
            *state_functions(get_state, set_state, names, (body, orelse)),
            names,
            len(names) if nouts is None else nouts,
            unread,
        )


def _nothing() -> None:
    """The missing branch, when a staged cond needs one to trace."""
