"""lists: the statement `l.append(x)` rebinds `l`, so a loop carries the list as a loop variable.

    l.append(x)    ->    l = ag__.list_append(l, x)

Only for a receiver that is a plain local name of the function (a closure
or global receiver is left alone: rebinding it would change its scope).
"""

from __future__ import annotations

import gast

from autograph.analysis.activity import scope_names
from autograph.analysis.traversal import Transformer
from autograph.converters.context import Context
from autograph.source.origins import inherit_location
from autograph.source.templates import replace

__all__ = ["transform"]


class _Appends(Transformer):
    statements_only = True  # its rewrites are all of statements

    def __init__(self, local_names: frozenset[str]) -> None:
        self.local_names = local_names

    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Expr(self, node: gast.Expr) -> gast.stmt:
        call = node.value
        if not (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Attribute)
            and call.func.attr == "append"
            and isinstance(call.func.value, gast.Name)
            and call.func.value.id in self.local_names
            and len(call.args) == 1
            and not isinstance(call.args[0], gast.Starred)
            and not call.keywords
        ):
            return node
        name = call.func.value.id
        (new,) = replace("target = ag__.list_append(target, element)", target=name, element=call.args[0])
        inherit_location(new, node)
        return new


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Rewrite `l.append(x)` statements of local lists."""
    # `Activity.of_function(node).local_names()`, declarations and bindings read in one walk
    local_names = scope_names(node, ctx.walrus).local
    transformer = _Appends(local_names)
    node.body = [transformer.visit(stmt) for stmt in node.body]
    return node
