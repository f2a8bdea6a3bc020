"""Variables created inside a Function: allowed in its first trace only.

A trace that creates Variables is run a second time at once: the usual
`if self.v is None: self.v = ag.Variable(...)` creates nothing the second
time and its trace is kept; a body that creates a Variable at every call
(`v = ag.Variable(1.0)`) creates new ones again and raises ValueError, since
the graph would otherwise make a fresh Variable at each run. A later trace
(another signature) may not create Variables at all. The error, a
StagingError (a ValueError, as in the guide), names the user's line that
created the Variable.

When the first trace created a Variable from a staged value, its graph holds
the node that gives the Variable that value on the first run (and does
nothing on later runs), so the first trace is the one kept; the second is
made only to check that no more Variables are created.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

from runtime.ir.errors import StagingError
from runtime.ir.origin import Origin, is_internal_file, is_standard_library, map_location
from runtime.ir.user_frames import format_frames

__all__ = ["traced_with_variable_policy", "MESSAGE"]

T = TypeVar("T")

MESSAGE = (
    "ag.function only supports singleton Variables created on the first call. Make sure the "
    "Variable is only created once (for example `if self.v is None: self.v = ag.Variable(...)`) "
    "or created outside the function and passed in or captured."
)


def _created() -> AbstractContextManager[list]:
    """The Variables created in the `with` block."""
    from runtime.tracing.variables import creation_scope

    return creation_scope()


@contextmanager
def _creation_sites() -> Iterator[list[Origin]]:
    """The user's lines that construct a Variable in the block (this thread only)."""
    from runtime.tracing.variables import Variable

    init_code = Variable.__init__.__code__
    sites: list[Origin] = []
    previous = sys.getprofile()

    def watch(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is init_code:
            origin = _user_site(frame.f_back)
            if origin is not None:
                sites.append(origin)

    sys.setprofile(watch)
    try:
        yield sites
    finally:
        sys.setprofile(previous)


def _user_site(frame: Any) -> Origin | None:
    while frame is not None:
        filename = frame.f_code.co_filename
        if not is_internal_file(filename) and not is_standard_library(filename):
            origin = map_location(filename, frame.f_lineno)
            if origin is not None:
                if origin.file == filename and not origin.function:
                    origin = Origin(origin.file, origin.line, origin.text, frame.f_code.co_name)
                return origin
        frame = frame.f_back
    return None


def traced_with_variable_policy(trace: Callable[[], T], first: bool, name: str) -> T:
    """Run `trace()`, enforcing that Variables are created only by the first trace."""
    first_result = None
    if first:
        with _created() as created:
            first_result = trace()
        if not created:
            return first_result
        if all(variable.is_initialized for variable in created):
            first_result = None  # every Variable has its value: the second trace is the one kept
    with _created() as created, _creation_sites() as sites:
        result = trace()
    if created:
        when = "every trace" if first else "a trace after the first one"
        raise _error(f"{name} creates Variables in {when}. {MESSAGE}", sites)
    return result if first_result is None else first_result


def _error(message: str, sites: list[Origin]) -> StagingError:
    error = StagingError(message)  # a ValueError, as the guide's
    if sites:
        note = format_frames(sites)
        if sys.version_info >= (3, 11):
            error.add_note(note)
        else:
            error.args = (f"{message}\n\n{note}",)
        error.__autograph_reported__ = True  # type: ignore[attr-defined]
    return error
