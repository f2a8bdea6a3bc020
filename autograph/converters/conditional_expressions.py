"""conditional_expressions: `x if c else y` -> `ag__.if_exp(c, lambda: x, lambda: y, "c")`.

Both branches stay lazy; the last argument is the condition's source text,
used in error messages about a staged conditional expression. One inside a
try or with block names it (`within=('try', 12)`, see catching).
"""

from __future__ import annotations

import gast

from autograph.converters.catching import within_keyword
from autograph.converters.context import Context
from autograph.converters.expression_scope import ExpressionTransformer, binds_or_suspends
from autograph.source.origins import inherit_location
from autograph.source.templates import constant, replace_expr

__all__ = ["transform"]


class _IfExps(ExpressionTransformer):
    made = False  # whether an if_exp call was written

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def visit_IfExp(self, node: gast.IfExp) -> gast.expr:
        self.generic_visit(node)
        if binds_or_suspends([node.body, node.orelse]):
            return node
        self.made = True
        text = gast.unparse(node.test).strip()
        new = replace_expr(
            "ag__.if_exp(test, lambda: body, lambda: orelse, text)",
            test=node.test,
            body=node.body,
            orelse=node.orelse,
            text=constant(text),
        )
        within = self.ctx.within_of(node)
        if within is not None:
            new.keywords.append(within_keyword(within))
        inherit_location(new, node)
        return new


def transform(node: gast.AST, ctx: Context) -> gast.AST:
    """Rewrite every conditional expression of the function."""
    rewrite = _IfExps(ctx)
    rewrite.run(node)
    ctx.lazy_operands = ctx.lazy_operands or rewrite.made
    return node
