"""Undefined: the value of a name that has not been bound yet on some path.

Converted code passes loop and branch variables through get_state/set_state;
a name that may still be unbound there holds `Undefined("y")` so that the
staged path can say exactly which name is missing and where.
"""

from __future__ import annotations

__all__ = ["Undefined", "is_undefined"]


class Undefined:
    """Placeholder for the name `symbol_name`, not yet bound."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str) -> None:
        self.symbol_name = symbol_name

    def __repr__(self) -> str:
        return f"Undefined({self.symbol_name!r})"

    def __getattr__(self, name: str):
        raise UnboundLocalError(f"local variable {self.symbol_name!r} referenced before assignment")

    def __bool__(self) -> bool:
        raise UnboundLocalError(f"local variable {self.symbol_name!r} referenced before assignment")


def is_undefined(value: object) -> bool:
    return isinstance(value, Undefined)
