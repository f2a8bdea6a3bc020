"""BoundFunction: a Function method looked up on an instance.

Each instance gets its own Function (its own cache of traces), which holds
the instance only weakly so caches never keep objects alive. The
BoundFunction returned by the attribute lookup holds the instance strongly
for as long as it is in use, so `Model().call(x)` works like a bound method.
"""

from __future__ import annotations

import operator
from typing import Any

__all__ = ["BoundFunction"]


class BoundFunction:
    """`instance.method` for a Function method: calls the instance's own Function."""

    __slots__ = ("__self__", "__func__")
    __autograph_function__ = True

    def __init__(self, instance: Any, function: Any) -> None:
        self.__self__ = instance
        self.__func__ = function

    # the instance's Function, found in C: a cache hit adds no Python frame
    __call__ = property(operator.attrgetter("__func__"), doc="Call the instance's Function.")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__func__, name)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, BoundFunction)
            and other.__self__ is self.__self__
            and other.__func__ is self.__func__
        )

    def __hash__(self) -> int:
        return hash((id(self.__self__), id(self.__func__)))

    def __repr__(self) -> str:
        return f"<bound ag.Function {self.__func__!r} of {self.__self__!r}>"
