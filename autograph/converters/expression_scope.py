"""ExpressionTransformer: the base of converters that rewrite expressions in place.

They visit the function's own code (nested defs and classes were converted on
their own) and leave alone any operand that binds a name (`:=`) or yields,
since wrapping it in a lambda would change its scope.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import Transformer, walk

__all__ = ["ExpressionTransformer", "binds_or_suspends"]

_UNSAFE = (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


def binds_or_suspends(nodes: list[gast.AST]) -> bool:
    """Whether moving `nodes` into a lambda would change what they do."""
    return any(isinstance(n, _UNSAFE) for node in nodes for n in walk(node))


class ExpressionTransformer(Transformer):
    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def run(self, fn: gast.AST) -> None:
        if isinstance(fn, gast.Lambda):
            fn.body = self.visit(fn.body)
        else:
            fn.body = [self.visit(stmt) for stmt in fn.body]
