"""for_stmt: a `for` loop, staged when it iterates over a Tensor or a staged range.

    for i in range(n):         def loop_body(i): nonlocal s; s += i
        s += i           ->    ag__.for_stmt(range(n), loop_body, ('s',), opts={'iterate_names': 'i'})

`extra_test` (or None) is the loop's extra condition, e.g. `not break_` after
a `break` was rewritten into a flag. It only ever reads flags that are False
when the loop starts (a break flag is set False just before its loop; code
after a `return` runs only while `do_return` is False), so in Python mode it
holds before the first iteration and is not called then. It is asked right
after a body, before the next item is taken: a loop left by `break` or
`return` leaves its iterator (or generator) where Python's does. A body whose
loop stops on one flag returns that flag, and its extra test is `not flag`: a
False flag means the test holds and a True one that it fails, so the test is
only called when the flag is not a bool (a Tensor set by a staged if, which a
Python loop cannot stop on: an error if an item is left) or when the body
returned nothing (the test reads several flags). The staged loop reads and
rebinds the carried names through the closure cells of the body and extra
test (no_state), or through `get_state`/`set_state` when given.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.ir.user_frames import note_user_code
from runtime.operators.staged_iterables import is_staged_iterable
from runtime.operators.within import traced_within
from runtime.tracing.staged import is_staged
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import STEP_ASIDE, is_tracing
from runtime.tracing.unrolling import UnrollWatch

__all__ = ["for_stmt"]

_END = object()  # what next(items, _END) returns when a Python loop has no item left
_PYTHON_ITERABLES = frozenset({list, tuple, range, dict, str, set, frozenset, enumerate, zip})


def for_stmt(
    iter_: object,
    body: Callable[[object], object],
    names: tuple[str, ...] = (),
    extra_test: Callable[[], object] | None = None,
    opts: dict | None = None,
    get_state: Callable[[], tuple] | None = None,
    set_state: Callable[[tuple], None] | None = None,
    within: tuple[str, int] | None = None,
) -> None:
    """Run the loop in Python, or stage it for a Tensor / staged range / TensorArray
    (traced `within` a try/with)."""
    if type(iter_) not in _PYTHON_ITERABLES and is_staged_iterable(iter_):
        _staged(iter_, extra_test, body, get_state, set_state, names, opts, within)
        return
    watch = None
    if STEP_ASIDE[0] and is_tracing():  # a Python loop while tracing unrolls: count it
        watch = UnrollWatch("for")
        body = watch.counted(body)
    try:
        if extra_test is None:
            for item in iter_:
                body(item)
        else:
            items = iter(iter_)  # a break leaves it where Python's would: no item taken after the body
            for item in items:
                flag = body(item)  # the break flag it returns, or None: ask extra_test
                if flag is not False:
                    if flag is True:
                        break
                    keep_going = extra_test()
                    if type(keep_going) is not bool and is_staged(keep_going):
                        if next(items, _END) is not _END:
                            _tensor_break(keep_going, names, opts, body)
                        break
                    if not keep_going:
                        break
    except BaseException as error:
        # a traceback keeps this frame, and so the iterable, alive until the handler ends;
        # the user's loop lets go of it on the way out (a generator's finally runs then)
        del iter_
        items = None
        if isinstance(error, Exception):
            note_user_code(error)
        raise
    if watch is not None:
        watch.done()


def _staged(
    iter_: object,
    extra_test: Callable[[], object] | None,
    body: Callable[[object], object],
    get_state: Callable[[], tuple] | None,
    set_state: Callable[[tuple], None] | None,
    names: tuple[str, ...],
    opts: dict | None,
    within: tuple[str, int] | None,
) -> None:
    """The staged half, kept out of for_stmt: its frame holds only the Python path's locals."""
    from runtime.operators.no_state import state_functions
    from runtime.operators.staged_loops import staged_for

    with traced_within(within, "for"):
        staged_for(
            iter_, extra_test, body, *state_functions(get_state, set_state, names, (body, extra_test)), names, opts or {}
        )


def _tensor_break(keep_going: Tensor, names: tuple[str, ...], opts: dict | None, body: Callable) -> None:
    """A Python loop cannot stop on a Tensor: the error that names the break, out of for_stmt's frame.
    A loop over one name passes no `iterate_names`: the body's parameter is that name."""
    from runtime.operators.staged_loops import tensor_break_in_python_loop

    if not (opts or {}).get("iterate_names"):
        code = getattr(getattr(body, "__wrapped__", body), "__code__", None)
        opts = {**(opts or {}), "iterate_names": code.co_varnames[0] if code and code.co_argcount else "i"}
    raise tensor_break_in_python_loop(keep_going, names, opts)
