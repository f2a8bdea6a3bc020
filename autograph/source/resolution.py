"""Resolution: what a name in converted code refers to, from live globals or from a file's imports.

The converter asks two questions: is this name a module (`np` -> numpy), so
calls on it need no conversion; and is this decorator ours (`ag.function`,
an alias of it, `ag.do_not_convert`), so it is stripped.
"""

from __future__ import annotations

import builtins
import types
from dataclasses import dataclass, field

import gast

DECORATOR_MARK = "__autograph_decorator__"  # set on ag.function and ag.do_not_convert

__all__ = ["DECORATOR_MARK", "StaticNames", "LiveNames", "dotted_name"]

_DECORATORS = frozenset({"function", "do_not_convert"})
_PACKAGE = "autograph"


def dotted_name(node: gast.expr) -> str | None:
    """`a.b.c` for an attribute chain on a name (a call's callee for `@d(...)`), else None."""
    if isinstance(node, gast.Call):
        node = node.func
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


@dataclass
class StaticNames:
    """Names bound by a file's module-level imports and assignments (the file is never run)."""

    modules: dict[str, str] = field(default_factory=dict)  # alias -> module
    imported: dict[str, str] = field(default_factory=dict)  # alias -> module.attr
    assigned: set[str] = field(default_factory=set)

    @classmethod
    def of_module(cls, module: gast.Module) -> StaticNames:
        names = cls()
        for node in module.body:
            if isinstance(node, gast.Import):
                for alias in node.names:
                    if alias.asname:
                        names.modules[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        names.modules[top] = top
            elif isinstance(node, gast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    names.imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
                names.assigned.add(node.name)
            elif isinstance(node, gast.Assign):
                for target in node.targets:
                    names.assigned |= {n.id for n in gast.walk(target) if isinstance(n, gast.Name)}
        return names

    def _full_name(self, dotted: str | None) -> str | None:
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        base = self.modules.get(head) or self.imported.get(head)
        if base is None:
            return None
        return f"{base}.{rest}" if rest else base

    def module_of(self, name: str) -> str | None:
        if name in self.modules:
            return self.modules[name]
        full = self.imported.get(name)
        return full if full is not None and full.split(".")[0] in ("numpy", _PACKAGE) else None

    def value_of(self, name: str) -> object:
        if name in self.modules or name in self.imported or name in self.assigned:
            return None
        return getattr(builtins, name, None)

    def is_ours_decorator(self, node: gast.expr) -> bool:
        full = self._full_name(dotted_name(node))
        return full is not None and full.split(".")[0] == _PACKAGE and full.rsplit(".", 1)[-1] in _DECORATORS

    def is_function_decorator(self, node: gast.expr) -> bool:
        full = self._full_name(dotted_name(node))
        return full is not None and full.split(".")[0] == _PACKAGE and full.rsplit(".", 1)[-1] == "function"


class LiveNames:
    """Names resolved in a live function's globals (and closure), falling back to builtins."""

    def __init__(self, func: types.FunctionType) -> None:
        self.globals = func.__globals__
        code = func.__code__
        self.cells = dict(zip(code.co_freevars, func.__closure__ or ()))

    def _lookup(self, name: str) -> object:
        cell = self.cells.get(name)
        if cell is not None:
            try:
                return cell.cell_contents
            except ValueError:
                return None
        if name in self.globals:
            return self.globals[name]
        return getattr(builtins, name, None)

    def module_of(self, name: str) -> str | None:
        if name in self.cells:
            return None  # a closure variable can change; decide at run time
        value = self.globals.get(name)
        return value.__name__ if isinstance(value, types.ModuleType) else None

    def value_of(self, name: str) -> object:
        if name in self.cells or name in self.globals:
            return None
        return getattr(builtins, name, None)

    def is_ours_decorator(self, node: gast.expr) -> bool:
        dotted = dotted_name(node)
        if dotted is None:
            return False
        head, *rest = dotted.split(".")
        value = self._lookup(head)
        for attr in rest:
            value = getattr(value, attr, None)
        return getattr(value, DECORATOR_MARK, False) is True
