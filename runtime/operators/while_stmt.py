"""while_stmt: a `while` loop, staged as a while_loop when its test is a Tensor.

    while x > 1:           def loop_test(): return x > 1
        x = x // 2    ->   def loop_body(): nonlocal x; x = x // 2
                           ag__.while_stmt(loop_test, loop_body, ('x',))

The test decides at every iteration: while it returns Python values the loop
runs in Python (while tracing, it unrolls); the first time it returns a
Tensor (`x = 0; while x < 10: x = x + t` after one iteration) the rest of the
loop is staged from the current state as one while_loop (staged_loops).
A bool test, the common case in Python mode, is recognised by identity. The
staged rest reads and rebinds the carried names through the closure cells of
the test and body (no_state), or through `get_state`/`set_state` when given;
`opts` (or None) holds the loop's options.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.ir.user_frames import note_user_code
from runtime.operators.within import traced_within
from runtime.tracing.staged import is_staged
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import STEP_ASIDE, is_tracing
from runtime.tracing.unrolling import UnrollWatch

__all__ = ["while_stmt"]


def while_stmt(
    test: Callable[[], object],
    body: Callable[[], None],
    names: tuple[str, ...] = (),
    opts: dict | None = None,
    get_state: Callable[[], tuple] | None = None,
    set_state: Callable[[tuple], None] | None = None,
    within: tuple[str, int] | None = None,
) -> None:
    """Run the loop in Python until its test first evaluates to a Tensor, then stage the rest
    (traced `within` a try/with)."""
    watch = None
    if STEP_ASIDE[0] and is_tracing():  # a Python loop while tracing unrolls: count it
        watch = UnrollWatch("while")
        body = watch.counted(body)
    try:
        while True:
            result = test()
            while result is True:
                body()
                result = test()
            if result is False:
                break
            if is_staged(result):
                _staged(result, test, body, get_state, set_state, names, opts, within)
                return
            if not result:
                break
            body()
    except Exception as error:
        note_user_code(error)
        raise
    if watch is not None:
        watch.done()


def _staged(
    result: Tensor,
    test: Callable[[], object],
    body: Callable[[], None],
    get_state: Callable[[], tuple] | None,
    set_state: Callable[[tuple], None] | None,
    names: tuple[str, ...],
    opts: dict | None,
    within: tuple[str, int] | None,
) -> None:
    """The staged rest of the loop, kept out of while_stmt: its frame holds only the Python path's locals."""
    from runtime.operators.no_state import state_functions
    from runtime.operators.staged_loops import staged_while

    with traced_within(within, "while"):
        staged_while(result, test, body, *state_functions(get_state, set_state, names, (test, body)), names, opts or {})
