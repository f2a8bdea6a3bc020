"""Error reports: an exception raised while tracing, told in the user's terms.

The exception keeps its type (code written for the guide's `except
ValueError` keeps working); a note lists only the user's frames, each at the
user's own file and line (frames of generated code are mapped back through
`runtime.ir.origin`; frames inside autograph and runtime are dropped):

    ValueError: ag.function only supports Variables created on the first call...
    in user code:

        File "model.py", line 3, in f
            v = ag.Variable(1.0)
"""

from __future__ import annotations

import sys
from collections import Counter
from types import TracebackType

from runtime.ir.errors import StagingError
from runtime.ir.origin import map_location
from runtime.ir.user_frames import REPORTED, format_frames, user_frames

__all__ = ["annotate", "autograph_off", "endless_recursion", "recursion_error", "user_traceback"]

def user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """`tb` with only the frames of the user's own files, as the "in user code" note lists them.

    A StagingError's traceback otherwise runs through some twenty frames of the
    tracing machinery and of generated code (`ag__.for_stmt(...)`), none of them
    the place to fix; the message and the note name the user's lines.
    """
    kept = []
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        origin = map_location(filename, tb.tb_lineno)
        if origin is not None and origin.file == filename:  # neither ours nor generated
            kept.append(tb)
        tb = tb.tb_next
    filtered = None
    for entry in reversed(kept):
        filtered = TracebackType(filtered, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return filtered


def annotate(error: BaseException, skip: int = 0) -> BaseException:
    """Add the "in user code:" section to `error` once (the innermost trace does it)."""
    if getattr(error, REPORTED, False):
        return error
    frames = user_frames(error.__traceback__)[skip:]
    try:
        setattr(error, REPORTED, True)
    except AttributeError:
        return error
    if not frames:
        return error
    note = format_frames(frames)
    if sys.version_info >= (3, 11):
        error.add_note(note)
    elif len(error.args) == 1 and isinstance(error.args[0], str):
        error.args = (f"{error.args[0]}\n\n{note}",)
    return error


def autograph_off(error: BaseException, name: str) -> None:
    """Tell a Tensor used as a Python bool or iterator in a Function made with autograph=False why.

    Its `if`, `while` and `for` run as Python, so the message's advice to put
    the condition in converted code needs the missing half: this Function is
    not converted, and the default `autograph=True` would stage the statement.
    """
    statements = getattr(error, "converted_by", "")
    if not statements or getattr(error, REPORTED, False) or not error.args or not isinstance(error.args[0], str):
        return
    # on a statement's own line, name it; elsewhere (a conditional expression, and/or) the line
    staged = "the converter would stage it" if " " in statements else f"this `{statements}` would be staged"
    error.args = (
        f"{error.args[0]}\nautograph is off for the Function {name!r} (ag.function(autograph=False)): "
        f"its if, while and for statements run as Python while tracing. With autograph=True (the "
        f"default) {staged}.",
        *error.args[1:],
    )


def endless_recursion(name: str, error: RecursionError) -> StagingError:
    """A trace that hit the recursion limit, told as the user's recursion that never stops.

    Both branches of a staged if are traced, so `if n == 0: return 1` on a tensor
    `n` never ends a recursion; the report names the user's line that repeats most.
    """
    frames = user_frames(error.__traceback__)
    counts = Counter((f.file, f.line) for f in frames)
    top = max(counts.values(), default=0)
    # the lines of the cycle (the limit may cut its last round short), outermost first
    cycle = [f for f in frames if counts[(f.file, f.line)] >= top - 1]
    where = ""
    if cycle and top > 2:
        first = cycle[0]
        others = sorted({f.function for f in cycle if f.function} - {first.function})
        through = f" (through {', '.join(others)})" if others else ""
        where = (f": {first.function or 'a function'} never stops calling itself{through}, "
                 f"from {first}\n{first.excerpt()}")
    return StagingError(
        f"tracing {name} recursed until Python's recursion limit{where}\n"
        f"A staged if traces both of its branches, so a recursion that stops on a tensor "
        f"condition never stops while tracing. Write the recursion as a loop (while, or "
        f"for ... in ag.range), or recurse only on Python values."
    )


def recursion_error(name: str, error: RecursionError) -> StagingError:
    """A trace out of recursion depth: the user's endless recursion, or staged constructs nested too deep.

    Recursion re-enters a converted function (its generated code object
    repeats in the traceback); an elif chain or a chain of conditional
    expressions only goes deeper, each level a helper or lambda of its own.
    """
    seen: Counter = Counter()
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.startswith("<autograph:"):
            seen[code] += 1
        tb = tb.tb_next
    if max(seen.values(), default=0) > 2:
        return endless_recursion(name, error)
    frames = user_frames(error.__traceback__)
    where = f" at {frames[-1]}\n{frames[-1].excerpt()}" if frames else ""
    return StagingError(
        f"tracing {name} nested staged conditionals deeper than Python's stack holds{where}\n"
        f"Each tensor-dependent elif, conditional expression or and/or traces its false branch "
        f"inside the previous one. Split the chain (assign parts of it to variables, or move "
        f"part of it into a function), or look the value up (a dict, or an array indexed by the value)."
    )
