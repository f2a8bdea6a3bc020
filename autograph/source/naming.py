"""Namespace: mints every name the converter adds to one function.

Names derive from a hint (`if_body`, `loop_body`, `break_`); the first use gets
the hint itself, later ones `_1`, `_2`; names the user's function already uses,
keywords and builtins are never handed out, so generated code reads like the
user's and never shadows anything the user can see.
"""

from __future__ import annotations

import builtins
import keyword

import gast

__all__ = ["Namespace"]

_RESERVED = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"ag__"}
_DEFINITIONS = frozenset({gast.FunctionDef, gast.ClassDef})


class Namespace:
    """Per-function generator of fresh, readable identifiers."""

    def __init__(self, taken: set[str]) -> None:
        self._taken = set(taken) | _RESERVED
        # hint -> the counter of the last name minted from it: every name up to it is taken
        # (names are only ever added), so the next search starts after it, not at the hint
        self._last: dict[str, int] = {}

    @classmethod
    def for_tree(cls, tree: gast.AST) -> Namespace:
        """A namespace avoiding every identifier that appears anywhere in `tree`."""
        taken: set[str] = set()
        stack = [tree]
        while stack:
            node = stack.pop()
            cls_ = type(node)
            if cls_ is gast.Name:
                taken.add(node.id)  # children still walked: a parameter's annotation holds names
            elif cls_ in _DEFINITIONS:
                taken.add(node.name)
            elif cls_ is gast.Global or cls_ is gast.Nonlocal:
                taken.update(node.names)
            elif cls_ is gast.alias:
                taken.add(node.asname or node.name.split(".")[0])
            for field in node._fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    stack.extend(v for v in value if isinstance(v, gast.AST))
                elif isinstance(value, gast.AST):
                    stack.append(value)
        return cls(taken)

    def new(self, hint: str) -> str:
        """A fresh name: `hint`, else `hint_1`, `hint_2`, ... (`break_`: `break_1`)."""
        separator = "" if hint.endswith("_") else "_"
        counter = self._last.get(hint)
        if counter is None:
            counter, name = 0, hint
        else:
            counter += 1
            name = f"{hint}{separator}{counter}"
        while name in self._taken:
            counter += 1
            name = f"{hint}{separator}{counter}"
        self._taken.add(name)
        self._last[hint] = counter
        return name

    def reserve(self, name: str) -> None:
        self._taken.add(name)
