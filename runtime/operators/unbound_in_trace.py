"""A name read while it is unbound, in a branch or loop body that is being traced.

A staged if traces both branches and a staged loop traces its body once,
whatever the values: code Python would not run for these inputs (the branch
not taken, the body of a loop that runs zero times) runs while tracing. When
it reads a name that is unbound there, Python raises a bare NameError out of
generated code:

    for t in range(len(u)):     # a Python loop: zero times for an empty u
        ...
    if x > 0:                   # staged: both branches traced
        y = t                   # NameError: free variable 't'

`unbound_read` turns that into the StagingError of the rule, naming the
construct, the line that reads the name and the fix.
"""

from __future__ import annotations

import re

from runtime.ir.errors import AutographError, StagingError
from runtime.ir.origin import Origin, map_location

__all__ = ["unbound_read"]


def unbound_read(error: BaseException, construct: str, origin: Origin | None,
                 fix: str) -> StagingError | None:
    """The StagingError for a NameError `error` raised while `construct` (the
    true branch of the tensor-dependent if, the body of the staged for loop)
    at `origin` was traced; None for any other error, or when the read is not
    in the user's code."""
    if not isinstance(error, NameError) or isinstance(error, AutographError):
        return None
    name = getattr(error, "name", None) or _quoted_name(str(error))
    site = _innermost_user_site(error)
    if site is None or not name:
        return None
    where = f" at {origin}" if origin is not None else ""
    return StagingError(
        f"'{name}' is unbound where {construct}{where} reads it: staged, it is traced "
        f"whatever the values, so every name it reads must be bound before it\n"
        f"{site.excerpt()}\nGive '{name}' a value before the {fix}."
    )


def _quoted_name(message: str) -> str | None:
    """The name in an UnboundLocalError's message, which (unlike a NameError's
    `name`) Python does not keep: "cannot access local variable 'z' where..."."""
    found = re.search(r"'([A-Za-z_][A-Za-z_0-9]*)'", message)
    return found.group(1) if found else None


def _innermost_user_site(error: BaseException) -> Origin | None:
    """The user's line of the innermost frame in user or converted code: the
    read itself, or the one that handed an Undefined placeholder to `not`."""
    site, tb = None, error.__traceback__
    while tb is not None:
        site = map_location(tb.tb_frame.f_code.co_filename, tb.tb_lineno) or site
        tb = tb.tb_next
    return site
