"""Errors raised while a compiled graph runs, pointed at the user's own line.

When NumPy raises inside compiled graph code (a singular matrix, an index out
of range, a py_function that fails), the traceback shows only generated files.
Every generated graph line has a source map entry back to the line that
created its node, so the innermost mapped frame names the user's file, line
and text. The note is added to the same exception: its type is unchanged and
`except numpy.linalg.LinAlgError:` still catches it.
"""

from __future__ import annotations

from runtime.ir.errors import AutographError
from runtime.ir.origin import Origin, graph_origin

__all__ = ["note_user_line"]

_MARK = "while running the graph, the op created at"


def _innermost_graph_origin(error: BaseException) -> Origin | None:
    found = None
    tb = error.__traceback__
    while tb is not None:
        origin = graph_origin(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if origin is not None:
            found = origin
        tb = tb.tb_next
    return found


def note_user_line(error: BaseException) -> None:
    """Add the user's file:line of the failing op to `error`, once.

    Our own errors that already say where (a failed staged assert, a gone Variable)
    get no note; the others (a TensorArray element never written) get one.
    """
    add_note = getattr(error, "add_note", None)  # Python 3.11+
    if add_note is None or any(_MARK in note for note in getattr(error, "__notes__", ())):
        return
    origin = _innermost_graph_origin(error)
    if origin is not None and not (isinstance(error, AutographError) and str(origin) in str(error)):
        add_note(f"{_MARK} {origin} raised:\n{origin.excerpt()}")
