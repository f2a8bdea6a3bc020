"""Variables created inside a Function: allowed in its first trace only.

A trace that creates Variables is run a second time at once: the usual
`if self.v is None: self.v = ag.Variable(...)` creates nothing the second
time and its trace is kept; a body that creates a Variable at every call
(`v = ag.Variable(1.0)`) creates new ones again and raises ValueError, since
the graph would otherwise make a fresh Variable at each run. A later trace
(another signature) may not create Variables at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["traced_with_variable_policy", "MESSAGE"]

T = TypeVar("T")

MESSAGE = (
    "ag.function only supports singleton Variables created on the first call. Make sure the "
    "Variable is only created once (for example `if self.v is None: self.v = ag.Variable(...)`) "
    "or created outside the function and passed in or captured."
)


@contextmanager
def _created() -> Iterator[list]:
    """The Variables created in the block (empty when the runtime has no Variables yet)."""
    try:
        from runtime.variables import creation_scope
    except ImportError:
        yield []
        return
    with creation_scope() as created:
        yield created


def traced_with_variable_policy(trace: Callable[[], T], first: bool, name: str) -> T:
    """Run `trace()`, enforcing that Variables are created only by the first trace."""
    with _created() as created:
        result = trace()
    if not created:
        return result
    if not first:
        raise ValueError(_message(name, created, "a trace after the first one"))
    with _created() as created_again:
        result = trace()
    if created_again:
        raise ValueError(_message(name, created_again, "every trace"))
    return result


def _message(name: str, variables: list, when: str) -> str:
    origins = [str(o) for o in (getattr(v, "origin", None) for v in variables) if o is not None]
    where = f" (created at {', '.join(origins)})" if origins else ""
    return f"{name} creates Variables in {when}{where}. {MESSAGE}"


