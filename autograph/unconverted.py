"""User functions that converted code calls as they are, and why: reported while tracing.

converted_call converts every user function it meets, except those marked
`do_not_convert`, generator functions, and those whose conversion fails (no
source, unsupported syntax): those run as plain Python. While tracing, that
is a fallback the user may not expect: a Python `if` or loop inside such a
function cannot stage. converted_call calls those whose conversion failed,
and those whose code has control flow, through `as_is(func, why)`, which,
only while a graph is being built, reports the call:

- to `ag.explain` (runtime.tracing.diagnostics) as "unconverted", with why;
- in strict mode (runtime.tracing.fallbacks), as a StagingError when the
  function could not be converted, or when its code holds control flow.

Outside a trace the wrapper costs one list read and a call; a do_not_convert
function without control flow is called directly (ag.explain's profile hook
sees those calls).
"""

from __future__ import annotations

import dis
import functools
import types
from collections.abc import Callable
from typing import Any

from runtime.tracing.diagnostics import note
from runtime.tracing.fallbacks import refuse_in_strict
from runtime.tracing.trace_context import STEP_ASIDE, is_tracing

__all__ = ["as_is", "control_flow_line"]

_BRANCHES = ("POP_JUMP", "JUMP_IF", "FOR_ITER", "JUMP_BACKWARD", "JUMP_ABSOLUTE")


def as_is(func: types.FunctionType, why: str, failed: bool = False) -> Callable[..., Any]:
    """`func`, called as is, reporting each call made while tracing (see the module docstring).

    `why`: 'marked do_not_convert', 'a generator function', or the conversion error.
    `failed`: the conversion failed (strict mode refuses any call of it).
    """

    @functools.wraps(func)
    def call_as_is(*args: Any, **kwargs: Any) -> Any:
        if STEP_ASIDE[0] and is_tracing():
            _report(func, why, failed)
        return func(*args, **kwargs)

    call_as_is.__autograph_as_is__ = func
    return call_as_is


def _report(func: types.FunctionType, why: str, failed: bool) -> None:
    name = getattr(func, "__qualname__", func.__name__)
    flow = control_flow_line(func.__code__)
    where = f" (it has control flow at {func.__code__.co_filename}:{flow})" if flow else ""
    note("call", "unconverted", f"{name} runs as Python: {why}{where}", depth=2)
    if failed:
        refuse_in_strict(
            f"{name} could not be converted ({why}), so it runs as plain Python while tracing\n"
            f"Make it convertible (see the error above), or mark it ag.do_not_convert if it "
            f"needs no staged control flow."
        )
    elif flow:
        refuse_in_strict(
            f"{name} is called unconverted ({why}) and has control flow at "
            f"{func.__code__.co_filename}:{flow}, which runs as Python while tracing (an `if` "
            f"on a tensor there fails, a loop unrolls)\nLet autograph convert it (remove "
            f"do_not_convert), or move the control flow out of it."
        )


def control_flow_line(code: types.CodeType) -> int | None:
    """The first line of `code` (or code nested in it) with a branch or loop, else None."""
    for ins in dis.get_instructions(code):
        if ins.opname.startswith(_BRANCHES) and ins.positions is not None and ins.positions.lineno:
            return ins.positions.lineno
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            line = control_flow_line(const)
            if line is not None:
                return line
    return None
