"""Undefined: the value of a name that has not been bound yet on some path.

Converted code passes loop and branch variables through get_state/set_state;
a name that may still be unbound there holds `Undefined("y")` so that the
staged path can say exactly which name is missing and where.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["Undefined", "is_undefined", "holds_undefined", "raise_unbound", "value_or_undefined"]


# The running Python's own words for reading an unbound local (they changed in 3.11).
_UNBOUND = (
    "cannot access local variable {!r} where it is not associated with a value"
    if sys.version_info >= (3, 11)
    else "local variable {!r} referenced before assignment"
)


class Undefined:
    """Placeholder for the name `symbol_name`, not yet bound."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str) -> None:
        self.symbol_name = symbol_name

    def __repr__(self) -> str:
        return f"Undefined({self.symbol_name!r})"

    def __getattr__(self, name: str):
        raise UnboundLocalError(_UNBOUND.format(self.symbol_name))

    def __bool__(self) -> bool:
        raise UnboundLocalError(_UNBOUND.format(self.symbol_name))

    __hash__ = object.__hash__  # kept: placeholders are looked up by identity


def _unbound(self: Undefined, *args: object) -> object:
    raise UnboundLocalError(_UNBOUND.format(self.symbol_name))


# Any arithmetic, comparison, indexing or iteration of a still-unbound name fails as Python would;
# == and != too, so a read converted code does not check (a staged if's test) never compares it.
for _name in (
    "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow rpow "
    "matmul rmatmul and rand or ror xor rxor lshift rlshift rshift rrshift neg pos abs invert "
    "eq ne lt le gt ge getitem setitem delitem iter len contains call index int float complex"
).split():
    setattr(Undefined, f"__{_name}__", _unbound)


def is_undefined(value: object) -> bool:
    return isinstance(value, Undefined)


def raise_unbound(symbol_name: str) -> object:
    """Python's error for reading a local not yet bound: converted code checks a read that may be
    one, `ag__.raise_unbound('n') if ag__.is_undefined(n) else n`, where copying the placeholder
    (`j = n`) would not fail."""
    raise UnboundLocalError(_UNBOUND.format(symbol_name))


def holds_undefined(read: Callable[[], object]) -> bool:
    """Whether a name that may also be unbound (a `del` ran) holds the Undefined placeholder."""
    try:
        return isinstance(read(), Undefined)
    except NameError:  # unbound by the user's `del`: nothing to undo
        return False


def value_or_undefined(read: Callable[[], object], symbol_name: str) -> object:
    """The value of a composite name like `self.total`, or Undefined when it does not exist yet
    (or of a plain name a `del` may have unbound)."""
    try:
        return read()
    except (AttributeError, KeyError, IndexError, NameError):
        return Undefined(symbol_name)
