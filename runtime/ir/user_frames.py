"""An exception raised in converted code, told at the user's own lines ("in user code:").

Converted code runs in generated files (`<autograph: model.py:lookup#0>`)
and through the operators, so a KeyError raised in a loop body has a
traceback of generated line numbers, `for_stmt.py` and `if_stmt.py`; Python's
default hook prints no text for the generated frames at all. The operators
and `converted_call` add one note to such an exception as it passes them,
listing the user's frames, generated ones mapped back:

    KeyError: 3
    in user code:

        File "model.py", line 5, in lookup
            for k in keys:
        File "model.py", line 7, in lookup
            total += table[k]

The exception is otherwise untouched: its type, its message and its
traceback (`pdb.pm()` still opens the frame that raised).

Only the operator called by the outermost converted function writes the
note, when the exception is about to leave the operators for good: one
caught inside converted code (`try: total += int(s) except ValueError:` in a
loop) costs a look at the calling frames, not a note.

Each operator writes its own `try: ... except Exception as error:
note_user_code(error); raise` around its body: until an exception comes, a
try costs nothing, where a decorator or a `with` block would cost every
call (a Python-mode loop makes several per iteration) a frame or two calls.
"""

from __future__ import annotations

import sys
from types import FrameType, TracebackType

from runtime.ir.errors import AutographError
from runtime.ir.origin import Origin, map_location, outermost_converted_frame

__all__ = ["REPORTED", "user_frames", "format_frames", "note_user_code"]

# set on an exception once its "in user code:" note is written (here or by a trace's report)
REPORTED = "__autograph_reported__"
_HAS_NOTES = sys.version_info >= (3, 11)  # BaseException.add_note


def _origin(frame: FrameType, line: int) -> Origin | None:
    """The user's place of a frame at `line`: mapped if generated; None if autograph's or runtime's."""
    code = frame.f_code
    origin = map_location(code.co_filename, line)
    if origin is not None and origin.file == code.co_filename and origin.line == line:
        origin = Origin(origin.file, origin.line, origin.text, code.co_name)  # the user's own file
    return origin


def user_frames(tb: TracebackType | None) -> list[Origin]:
    """The user's frames of a traceback, innermost last, generated ones mapped back."""
    frames = []
    while tb is not None:
        origin = _origin(tb.tb_frame, tb.tb_lineno)
        if origin is not None:
            frames.append(origin)
        tb = tb.tb_next
    return frames


def format_frames(frames: list[Origin]) -> str:
    lines = ["in user code:", ""]
    for origin in frames:
        where = f' in {origin.function}' if origin.function else ""
        lines.append(f'    File "{origin.file}", line {origin.line},{where}'.replace(",,", ","))
        if origin.text.strip():
            lines.append(f"        {origin.text.strip()}")
    return "\n".join(lines)


def note_user_code(error: Exception) -> None:
    """Add the "in user code:" note to `error`, raised below the operator handling it, once.

    Our own errors say where already; a RecursionError would only recurse
    again; before Python 3.11 there are no notes.
    """
    if not _HAS_NOTES or isinstance(error, RecursionError):
        return
    tb = error.__traceback__
    caller = outermost_converted_frame(tb.tb_frame.f_back) if tb is not None else None
    if caller is None or isinstance(error, AutographError) or getattr(error, REPORTED, False):
        return
    try:
        setattr(error, REPORTED, True)
    except AttributeError:  # a class with __slots__ and no __dict__
        return
    frames: list[Origin] = []
    for origin in [_origin(caller, caller.f_lineno or 0), *user_frames(tb)]:
        # a lambda of `d[k] if c else 0` runs on its caller's line: one place to the user
        if origin is not None and (not frames or (frames[-1].file, frames[-1].line) != (origin.file, origin.line)):
            frames.append(origin)
    if frames:
        error.add_note(format_frames(frames))
