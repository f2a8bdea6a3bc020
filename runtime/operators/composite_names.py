"""Composite names a staged if or loop carries (`simplex[2]`, `self.total`, `s['v'].x`), read and
written through the closure cell of the plain name they stand on.

The converter names them as `autograph.analysis.composites` writes them: a
plain name, then attributes and constant subscripts (an int or str key).
Reading one that does not exist yet (an attribute or key set only inside
the statement, or a root name still unbound) gives `Undefined(text)`, as
Python's `AttributeError`, `KeyError`, `IndexError` or `NameError` would
have been raised by reading it; writing one is the assignment the converted
code would make, `simplex[2] = value`.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from types import CellType

from runtime.operators.undefined import Undefined

__all__ = ["CompositeName", "parse_composite", "root_name"]

_MISSING = (AttributeError, KeyError, IndexError, NameError)


class CompositeName:
    """One carried composite: its root's cell and the steps (attribute or key) from it."""

    __slots__ = ("text", "cell", "steps")

    def __init__(self, text: str, cell: CellType, steps: tuple[tuple[bool, object], ...]) -> None:
        self.text = text
        self.cell = cell
        self.steps = steps  # (is_attribute, attribute name or key), outermost first

    def _root(self) -> object:
        try:
            return self.cell.cell_contents
        except ValueError:  # the root name is unbound
            raise NameError(f"free variable {self.text.split('.')[0].split('[')[0]!r} referenced before assignment") from None

    def read(self) -> object:
        """The current value, or Undefined when it does not exist."""
        try:
            value = self._root()
            for attribute, step in self.steps:
                value = getattr(value, step) if attribute else value[step]
            return value
        except _MISSING:
            return Undefined(self.text)

    def write(self, new: object) -> None:
        """`text = new`: the object the last step is on is read, then assigned to."""
        value = self._root()
        for attribute, step in self.steps[:-1]:
            value = getattr(value, step) if attribute else value[step]
        attribute, step = self.steps[-1]
        if attribute:
            setattr(value, step, new)
        else:
            value[step] = new


def root_name(name: str) -> str:
    """The plain name whose cell holds `name`: itself, or a composite's root (`x[0].a` -> `x`)."""
    return name if name.isidentifier() else parse_composite(name)[0]


@lru_cache(maxsize=1024)
def parse_composite(text: str) -> tuple[str, tuple[tuple[bool, object], ...]]:
    """(root name, steps) of a composite's text: `x[0].a` -> ('x', ((False, 0), (True, 'a')))."""
    steps: list[tuple[bool, object]] = []
    node = ast.parse(text, mode="eval").body
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Attribute):
            steps.append((True, node.attr))
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            steps.append((False, node.slice.value))
            node = node.value
        else:
            raise ValueError(f"internal error: {text!r} is not a composite name")
    return node.id, tuple(reversed(steps))
