"""asserts: `assert test, msg` -> `ag__.assert_stmt(test, lambda: msg)`.

The message stays lazy, as in Python; a Tensor test is staged as an assert op.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import Transformer
from autograph.converters.context import Context
from autograph.source.origins import inherit_location
from autograph.source.templates import replace

__all__ = ["transform"]


class _Asserts(Transformer):
    statements_only = True  # its rewrites are all of statements

    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Assert(self, node: gast.Assert) -> gast.stmt:
        if node.msg is None:
            (new,) = replace("ag__.assert_stmt(test)", test=node.test)
        else:
            (new,) = replace("ag__.assert_stmt(test, lambda: msg)", test=node.test, msg=node.msg)
        inherit_location(new, node)
        return new


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Rewrite every assert statement of the function."""
    transformer = _Asserts()
    node.body = [transformer.visit(stmt) for stmt in node.body]
    return node
