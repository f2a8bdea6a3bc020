"""Composite names: attributes and constant subscripts a block assigns (`self.total`, `s["v"]`).

A staged if or loop carries them like plain names, so a value stored on an
object inside a tensor-dependent branch or loop comes out of it as a result
of the staged op instead of leaking a tensor of the branch's own trace:

    if x > 0:                     def get_state():
        self.total = x                return (ag__.value_or_undefined(lambda: self.total, 'self.total'),)
                                  def set_state(vars_):
                                      (self.total,) = vars_

Only locations with a fixed meaning count: a chain of attributes and
constant subscripts on a name that the block itself does not rebind.
"""

from __future__ import annotations

import re

import gast

__all__ = ["CompositeTargets", "composite_key", "composite_root", "modified_composites"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda,
           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def composite_key(node: gast.AST) -> tuple[str, str] | None:
    """(text, root name) of an attribute/constant-subscript chain on a name, else None."""
    if isinstance(node, gast.Attribute):
        inner = _key_or_name(node.value)
        return None if inner is None else (f"{inner[0]}.{node.attr}", inner[1])
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
        value = node.slice.value
        if type(value) not in (str, int):
            return None
        inner = _key_or_name(node.value)
        return None if inner is None else (f"{inner[0]}[{value!r}]", inner[1])
    return None


def composite_root(text: str) -> str:
    """The plain name a carried name stands on: `simplex` of `simplex[2]`, `self` of `self.a.b`."""
    return _ROOT.match(text).group(0)


_ROOT = re.compile(r"\w+")


def _key_or_name(node: gast.AST) -> tuple[str, str] | None:
    if isinstance(node, gast.Name):
        return node.id, node.id
    return composite_key(node)


def _targets(stmt: gast.stmt) -> list[gast.expr]:
    if isinstance(stmt, gast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (gast.AugAssign, gast.AnnAssign, gast.For, gast.AsyncFor)):
        return [stmt.target]
    if isinstance(stmt, (gast.With, gast.AsyncWith)):
        return [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    return []


def _flatten(target: gast.expr) -> list[gast.expr]:
    if isinstance(target, (gast.Tuple, gast.List)):
        return [leaf for elt in target.elts for leaf in _flatten(elt)]
    if isinstance(target, gast.Starred):
        return _flatten(target.value)
    return [target]


def modified_composites(stmts: list[gast.stmt], rebound: frozenset[str]) -> tuple[str, ...]:
    """Composite names the statements assign (not inside nested scopes), outer ones first.

    `rebound` are the plain names the statements bind: a chain on one of them
    names a different object on each pass, so it is not carried.
    """
    return CompositeTargets().modified(stmts, rebound)


class CompositeTargets:
    """The composite targets of each statement of one function, nested blocks included, found once.

    Control flow asks about every if and loop, and an outer statement's
    blocks hold the inner ones: each statement is read once, and a compound
    statement's answer is put together from its parts'. Valid while no
    statement's targets change (planning runs before any rewrite).
    """

    def __init__(self) -> None:
        self._memo: dict[gast.stmt, frozenset[tuple[str, str]]] = {}

    def modified(self, stmts: list[gast.stmt], rebound: frozenset[str]) -> tuple[str, ...]:
        """What `modified_composites` answers, from the memo."""
        found: set[str] = set()
        for stmt in stmts:
            for text, root in self._memo[stmt] if stmt in self._memo else self._of(stmt):
                if root not in rebound:
                    found.add(text)
        if not found:
            return ()
        return tuple(sorted(found, key=lambda key: (key.count(".") + key.count("["), key)))

    def _of(self, stmt: gast.stmt) -> frozenset[tuple[str, str]]:
        """(text, root) of every composite `stmt` assigns, its nested blocks included."""
        found: set[tuple[str, str]] = set()
        if not isinstance(stmt, _SCOPES):
            for target in _targets(stmt):
                for leaf in _flatten(target):
                    key = composite_key(leaf)
                    if key is not None:
                        found.add(key)
            for field in ("body", "orelse", "finalbody"):
                block = getattr(stmt, field, None)
                if type(block) is list:
                    for inner in block:
                        found |= self._memo[inner] if inner in self._memo else self._of(inner)
            for child in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
                for inner in child.body:
                    found |= self._memo[inner] if inner in self._memo else self._of(inner)
        result = self._memo[stmt] = frozenset(found)
        return result
