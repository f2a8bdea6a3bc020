"""conditional_expressions: `x if c else y` -> `ag__.if_exp(c, lambda: x, lambda: y, "c")`.

Both branches stay lazy; the last argument is the condition's source text,
used in error messages about a staged conditional expression, or 'return'
for one that conditional_returns made of an if whose branches return (its
errors then speak of the if and the function's return value). One inside a
try or with block names it (`within=('try', 12)`, see catching).
"""

from __future__ import annotations

import gast

from autograph.converters.catching import within_keyword
from autograph.converters.conditional_returns import RETURNED
from autograph.converters.context import Context
from autograph.converters.expression_scope import Rewrite, binds_or_suspends, rewrite_expressions
from autograph.source.origins import inherit_location
from autograph.source.templates import constant, replace_expr

__all__ = ["rewrites", "transform"]


class _IfExps:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def if_exp(self, node: gast.IfExp) -> gast.expr:
        """The call for `node`, whose operands are rewritten already (nested ones too)."""
        if binds_or_suspends([node.body, node.orelse]):
            return node
        self.ctx.lazy_operands = True
        text = RETURNED if id(node) in self.ctx.returned else gast.unparse(node.test).strip()
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


def rewrites(node: gast.AST, ctx: Context) -> dict[type, Rewrite]:
    """The rewrite of conditional expressions, for `rewrite_expressions`."""
    return {gast.IfExp: _IfExps(ctx).if_exp}


def transform(node: gast.AST, ctx: Context) -> gast.AST:
    """Rewrite every conditional expression of the function."""
    rewrite_expressions(node, rewrites(node, ctx))
    return node
