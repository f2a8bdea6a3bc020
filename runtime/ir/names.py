"""Namespace: the one place names are minted, for graph nodes and generated code alike.

Every generated name (a node's, a compiled graph's local, a fast call's global)
must be a valid, unique Python identifier derived from what the user wrote, so
code a person reads shows their names: `x`, `x_1`, `x_2`.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable

__all__ = ["Namespace"]


class Namespace:
    """Mints unique, valid Python identifiers from hints: "x", "x_1", "x_2" ("break_": "break_1").

    Graph nodes, the compiled graph's locals, the fast call's globals and the
    converter's helpers (`if_body`, `loop_body_1`) all come from here."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        # kept apart from the names minted: a frozenset (codegen's builtins) is shared, not copied
        self._reserved = reserved if isinstance(reserved, frozenset) else frozenset(reserved)
        self._used: set[str] = set()
        self._next: dict[str, int] = {}  # base -> first counter worth trying (keeps minting O(1))

    def create(self, hint: str) -> str:
        if hint.isascii() and hint.isidentifier():
            base = hint  # the common case: already a name, nothing to replace
        else:
            base = re.sub(r"\W", "_", hint or "t")
            if not base or base[0].isdigit():
                base = "t_" + base
        if keyword.iskeyword(base):
            base += "_"
        used, reserved = self._used, self._reserved
        if base not in used and base not in reserved:
            used.add(base)
            return base
        separator = "" if base.endswith("_") else "_"
        counter = self._next.get(base, 1)
        name = f"{base}{separator}{counter}"
        while name in used or name in reserved:
            counter += 1
            name = f"{base}{separator}{counter}"
        self._next[base] = counter + 1
        used.add(name)
        return name

    def reserve(self, name: str) -> None:
        """Never hand out `name` (a name the surrounding code already uses)."""
        self._used.add(name)

    def __contains__(self, name: str) -> bool:
        return name in self._used or name in self._reserved
