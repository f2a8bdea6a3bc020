"""Python mode at Python's speed: what `ag.convert(f)` returns runs `f`'s own code where nothing stages.

Called with Python values outside any trace, the converted function and the
original are equal by contract (API.md), so running the original's code is
exact, and as fast as `f`. The function `ag.convert` returns is a copy of `f`
(its code, globals, cells, defaults) whose code is swapped, under the lock of
`runtime.tracing.trace_context`, whenever there is a reason to stage anywhere
in the process: a graph being built, an eager GradientTape recording, or
functions run eagerly (`STEP_ASIDE[0]` leaves 0). The code swapped in is a
trampoline with `f`'s signature and free variables that calls the converted
function; when the last reason ends the original code comes back.

    g = ag.convert(f)
    g(3)                  # f's own code: no trace, no tape
    ag.function(h)(x)     # h calls g while tracing: g's trampoline runs the converted code

Another thread that calls `g` while one traces runs the converted code too:
equal results, only slower. A frame already running keeps the code it
started with. The converted function itself stays at `__autograph_staged__`
(what `Function`, `converted_call` and `to_code` use through the trampoline
or directly).

`fast_calls(False)` turns the copies off, so that `ag.convert` returns the
converted function itself: the test suite does, so that every comparison of
`ag.convert(f)` with `f` runs the converted code on Python values.
"""

from __future__ import annotations

import threading
import types
import warnings
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from runtime.tracing.trace_context import when_stepping_aside

__all__ = ["fast_copy", "fast_calls", "fast_calls_enabled", "set_fast_calls"]

_ENABLED = [True]
# every live copy, with its two codes: the original's and the trampoline's
_COPIES: weakref.WeakKeyDictionary[types.FunctionType, tuple[types.CodeType, types.CodeType]] = (
    weakref.WeakKeyDictionary()
)
_STAGING = [False]  # whether STEP_ASIDE[0] is above 0, as last told
_LOCK = threading.Lock()  # guards _COPIES between threads (the listener runs under trace_context's lock)
_TARGET = "__autograph_trampoline_target__"
_VARARGS, _VARKEYWORDS = 0x04, 0x08


def fast_calls_enabled() -> bool:
    return _ENABLED[0]


def set_fast_calls(enabled: bool) -> None:
    """From now on `ag.convert` makes fast copies (True, the default) or returns converted code."""
    _ENABLED[0] = enabled


@contextmanager
def fast_calls(enabled: bool) -> Iterator[None]:
    """While the block runs, `ag.convert` makes fast copies (True) or returns converted code (False)."""
    before = _ENABLED[0]
    _ENABLED[0] = enabled
    try:
        yield
    finally:
        _ENABLED[0] = before


def _switch(staging: bool) -> None:
    """The listener: every copy runs its trampoline while anything stages, its original code else."""
    _STAGING[0] = staging
    with _LOCK:
        copies = list(_COPIES.items())
    for copy, (original, trampoline) in copies:
        copy.__code__ = trampoline if staging else original


when_stepping_aside(_switch)


def fast_copy(func: types.FunctionType, converted: types.FunctionType) -> types.FunctionType:
    """A copy of `func` that runs its own code outside any trace and `converted` inside one;
    `converted` itself when copies are off or `func`'s code has no trampoline (see `_trampoline`)."""
    if not _ENABLED[0]:
        return converted
    trampoline = _trampoline(func.__code__, converted)
    if trampoline is None:
        return converted
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    copy.__dict__.update(converted.__dict__)
    copy.__qualname__ = func.__qualname__
    copy.__module__ = func.__module__
    copy.__doc__ = func.__doc__
    copy.__annotations__ = func.__annotations__
    copy.__autograph_staged__ = converted

    def register(staging: bool) -> None:
        with _LOCK:
            _COPIES[copy] = (func.__code__, trampoline)
        copy.__code__ = trampoline if staging else func.__code__

    when_stepping_aside(register, register=False)
    return copy


def _trampoline(code: types.CodeType, target: types.FunctionType) -> types.CodeType | None:
    """A code object with `code`'s parameters and free variables that calls `target` with its
    arguments (as a constant: its closure must be `code`'s), or None where `code` is no plain
    function's (a generator's, a coroutine's) or the free variables come out otherwise."""
    if code.co_flags & (0x20 | 0x80 | 0x100 | 0x200):  # generator, coroutine, async generator
        return None
    names = code.co_varnames
    positional = names[: code.co_argcount]
    keyword_only = names[code.co_argcount: code.co_argcount + code.co_kwonlyargcount]
    rest = code.co_argcount + code.co_kwonlyargcount
    star = names[rest] if code.co_flags & _VARARGS else None
    double = names[rest + (star is not None)] if code.co_flags & _VARKEYWORDS else None
    params = list(positional)
    if code.co_posonlyargcount:
        params.insert(code.co_posonlyargcount, "/")
    if star is not None:
        params.append(f"*{star}")
    elif keyword_only:
        params.append("*")
    params += keyword_only
    if double is not None:
        params.append(f"**{double}")
    args = list(positional) + ([f"*{star}"] if star else []) + [f"{k}={k}" for k in keyword_only]
    args += [f"**{double}"] if double else []
    free = code.co_freevars
    text = (
        f"def __ag_factory__({', '.join(free)}):\n"
        f"    def __ag_trampoline__({', '.join(params)}):\n"
        + (f"        if 0:\n            ({', '.join(free)},)\n" if free else "")
        + f"        return {_TARGET!r}({', '.join(args)})\n"
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "'str' object is not callable": the constant is replaced
            module = compile(text, code.co_filename, "exec", dont_inherit=True)
    except SyntaxError:  # a free variable no parameter may be named (`__class__` and the like)
        return None
    factory = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory.co_consts if isinstance(c, types.CodeType))
    if inner.co_freevars != free:
        return None
    consts = tuple(target if isinstance(c, str) and c == _TARGET else c for c in inner.co_consts)
    return inner.replace(
        co_consts=consts, co_name=code.co_name, co_qualname=code.co_qualname,
        co_firstlineno=code.co_firstlineno,
    )
