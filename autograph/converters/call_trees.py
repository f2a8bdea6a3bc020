"""call_trees: calls go through `ag__.converted_call`, so user functions they reach get converted too.

    y = f(x, *rest, k=1, **kw)  ->  y = ag__.converted_call(f, x, *rest, k=1, **kw)
    z = np.tanh(x)              ->  z = np.tanh(x)        (known to need no conversion)
    n = len(x)                  ->  n = ag__.len(x)       (a builtin the runtime stages, not shadowed)

A call stays direct when its callee is decided statically to need no
conversion: an attribute of a module-level import of numpy / autograph /
runtime / math, a builtin the runtime does not stage, or an `ag__` operator;
never for `np.random.*`, whose draws converted_call reports while tracing.
"""

from __future__ import annotations

import builtins
import sys

import gast

from autograph.analysis.activity import scope_names
from autograph.converters import unpacking
from autograph.converters.captured_subscripts import Subscripts
from autograph.converters.context import Context
from autograph.converters.expression_scope import Rewrite, rewrite_expressions
from autograph.converters.item_assignment import ItemAssignments
from autograph.random_draws import is_random_module
from autograph.source.origins import inherit_location
from autograph.source.templates import replace_expr
from runtime.operators.builtins import OVERRIDES

__all__ = ["rewrites", "transform", "SAFE_PACKAGES"]

# modules whose functions never need conversion; math's are C functions over Python numbers
SAFE_PACKAGES = frozenset({"numpy", "autograph", "runtime", "math"})
_NEVER = frozenset({"super", "locals", "globals", "vars", "eval", "exec", "dir"})
# builtins with an operator of the same name in `ag__` (runtime.operators.builtins.OVERRIDES)
_STAGED_BUILTINS = frozenset(f.__name__ for f in OVERRIDES if getattr(builtins, getattr(f, "__name__", ""), None) is f)


def _root(node: gast.expr) -> gast.expr:
    while isinstance(node, gast.Attribute):
        node = node.value
    return node


def _has_override(module: str, func: gast.expr) -> bool:
    """NumPy calls with a staged replacement (np.asarray, np.zeros) go through converted_call."""
    attrs = []
    while isinstance(func, gast.Attribute):
        attrs.insert(0, func.attr)
        func = func.value
    value = sys.modules.get(module)
    for attr in attrs:
        value = getattr(value, attr, None)
    try:
        return value in OVERRIDES
    except TypeError:
        return False


def _draws(module: str, func: gast.expr) -> bool:
    """np.random.normal(...) goes through converted_call, which reports a draw made while tracing."""
    attrs = []
    while isinstance(func, gast.Attribute):
        attrs.insert(0, func.attr)
        func = func.value
    return is_random_module(".".join([module, *attrs[:-1]]))


class _Calls:
    def __init__(self, ctx: Context, local_names: frozenset[str]) -> None:
        self.ctx = ctx
        self.local_names = local_names

    def _direct(self, func: gast.expr) -> bool:
        root = _root(func)
        if not isinstance(root, gast.Name):
            return False
        name = root.id
        if name == "ag__":
            return True
        if name in self.local_names:
            return False
        if func is root:
            if name in _NEVER:
                return True
            value = self.ctx.value_of(name)
            return value is not None and getattr(builtins, name, None) is value and value not in OVERRIDES

        module = self.ctx.module_of(name)
        if module is None or module.split(".")[0] not in SAFE_PACKAGES:
            return False
        return not _has_override(module, func) and not _draws(module, func)

    def _staged_builtin(self, func: gast.expr) -> str | None:
        """The name of the builtin `func` names when the runtime stages it (`len`, `range`) and
        neither a local nor a global shadows it: called as `ag__.len(x)`."""
        if type(func) is not gast.Name or func.id in self.local_names or func.id not in _STAGED_BUILTINS:
            return None
        value = self.ctx.value_of(func.id)
        return func.id if value is not None and value is getattr(builtins, func.id) else None

    def call(self, node: gast.Call) -> gast.expr:
        """`node` through converted_call, unless direct; its callee and arguments are rewritten already."""
        builtin = self._staged_builtin(node.func)
        if builtin is not None:
            node.func = replace_expr(f"ag__.{builtin}", node.func)
            return node
        if self._direct(node.func):
            return node
        # the template's own nodes take the call's location as they are made; only the callee
        # (and any part of the call an earlier rewrite left without one) is walked for it
        inherit_location([node.func], node)
        callee = replace_expr("ag__.converted_call", node)
        return gast.copy_location(gast.Call(func=callee, args=[node.func, *node.args], keywords=node.keywords), node)


def rewrites(node: gast.AST, ctx: Context) -> dict[type, Rewrite]:
    """The rewrite of calls (none when the conversion is not recursive), and of captured subscripts.

    Reads the function's own scope: other rewrites given in the same walk
    must bind no name there (and/or and conditional expressions bind none).
    """
    # the function's own scope in one walk of its statements (`Activity.local_names()` less the walk for declarations)
    local_names = scope_names(node, ctx.walrus).local if not isinstance(node, gast.Lambda) else frozenset(
        a.id for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs
    )
    # captured arrays indexed with a computed key (captured_subscripts): the same scope decides
    found: dict[type, Rewrite] = {gast.Subscript: Subscripts(local_names).subscript, gast.Assign: unpacking.assign}
    if not isinstance(node, gast.Lambda):  # item assignments (`x[i] = v`) rebind x: item_assignment
        items = ItemAssignments(node, ctx.first_line)
        if items.reasons:
            found[gast.Assign] = lambda stmt: unpacking.assign(items.assign(stmt))
            found[gast.AugAssign] = items.aug_assign
    if ctx.options.recursive:
        found[gast.Call] = _Calls(ctx, local_names).call
    return found


def transform(node: gast.AST, ctx: Context) -> gast.AST:
    """Route the function's calls through converted_call (unless the conversion is not recursive)."""
    rewrite_expressions(node, rewrites(node, ctx))
    return node
