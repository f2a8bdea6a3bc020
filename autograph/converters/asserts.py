"""asserts: `assert test, msg` -> `ag__.assert_stmt(test, lambda: msg)`.

The message stays lazy, as in Python; a Tensor test is staged as an assert op.
An assert inside a try or with block names it (`within=('try', 12)`, see catching).
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import Transformer
from autograph.converters.catching import within_keyword
from autograph.converters.context import Context
from autograph.source.origins import inherit_location
from autograph.source.templates import replace

__all__ = ["transform"]


class _Asserts(Transformer):
    statements_only = True  # its rewrites are all of statements

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Assert(self, node: gast.Assert) -> gast.stmt:
        if node.msg is None:
            (new,) = replace("ag__.assert_stmt(test)", test=node.test)
        else:
            (new,) = replace("ag__.assert_stmt(test, lambda: msg)", test=node.test, msg=node.msg)
        within = self.ctx.within_of(node)
        if within is not None:
            new.value.keywords.append(within_keyword(within))
        inherit_location(new, node)
        return new


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Rewrite every assert statement of the function."""
    transformer = _Asserts(ctx)
    node.body = [transformer.visit(stmt) for stmt in node.body]
    return node
