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

from runtime.ir import names

__all__ = ["Namespace"]

_RESERVED = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"ag__"}
_DEFINITIONS = frozenset({gast.FunctionDef, gast.ClassDef})


class Namespace(names.Namespace):
    """Per-function generator of fresh, readable identifiers (`new(hint)`)."""

    def __init__(self, taken: set[str]) -> None:
        super().__init__(_RESERVED)
        for name in taken:
            self.reserve(name)

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
        return self.create(hint)
