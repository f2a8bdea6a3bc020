"""Error reports: an exception raised while tracing, told in the user's terms.

The exception keeps its type (code written for the guide's `except
ValueError` keeps working); a note lists only the user's frames, each at the
user's own file and line (frames of generated code are mapped back through
`runtime.origin`; frames inside autograph and runtime are dropped):

    ValueError: ag.function only supports Variables created on the first call...
    in user code:

        File "model.py", line 3, in f
            v = ag.Variable(1.0)
"""

from __future__ import annotations

import sys
import traceback
from types import TracebackType

from runtime.origin import Origin, is_internal_file, map_location

__all__ = ["annotate", "user_frames", "format_frames"]

_MARK = "__autograph_reported__"


def user_frames(tb: TracebackType | None) -> list[Origin]:
    """The user's frames of a traceback, innermost last, generated ones mapped back."""
    frames = []
    for summary in traceback.extract_tb(tb):
        if is_internal_file(summary.filename):
            continue
        origin = map_location(summary.filename, summary.lineno or 0)
        if origin is None:
            continue
        if origin.file == summary.filename and origin.line == summary.lineno:
            origin = Origin(origin.file, origin.line, origin.text, summary.name)
        frames.append(origin)
    return frames


def format_frames(frames: list[Origin]) -> str:
    lines = ["in user code:", ""]
    for origin in frames:
        where = f' in {origin.function}' if origin.function else ""
        lines.append(f'    File "{origin.file}", line {origin.line},{where}'.replace(",,", ","))
        if origin.text.strip():
            lines.append(f"        {origin.text.strip()}")
    return "\n".join(lines)


def annotate(error: BaseException, skip: int = 0) -> BaseException:
    """Add the "in user code:" section to `error` once (the innermost trace does it)."""
    if getattr(error, _MARK, False):
        return error
    frames = user_frames(error.__traceback__)[skip:]
    try:
        setattr(error, _MARK, True)
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
