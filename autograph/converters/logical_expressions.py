"""logical_expressions: lazy `and`/`or`, `not`, and chained comparisons as operator calls.

    a and b        ->  ag__.and_(a, lambda: b)
    not a          ->  ag__.not_(a)
    a < b < c      ->  ag__.and_(a < b, lambda: b < c)

Each nested call is one bracket deeper, and Python's tokenizer nests 200 at
most, while Python accepts chains of thousands of operands: a chain longer
than `NESTED_CHAIN` operands is one flat call, `ag__.and_(a, lambda: b,
lambda: c, ...)`, which the operator evaluates left to right with the same
short circuit. A run of `not`s is one or two calls: `not not not a` is
`not a` (`not` returns a bool, whose double negation is itself).

The left operand is evaluated before the call, as Python evaluates it first;
the right one is a lambda, called only when Python would evaluate it.

A chained comparison is split only when its middle operands are names,
constants or attributes, which read the same when evaluated twice; others keep
Python's chained form.

An `and`/`or` or chain inside a try or with block names it (`within=('try', 12)`,
see catching): with a Tensor left operand it would stage a cond there.
"""

from __future__ import annotations

import gast

from autograph.converters.catching import within_keyword
from autograph.converters.context import Context
from autograph.converters.expression_scope import Rewrite, binds_or_suspends, rewrite_expressions
from autograph.source.origins import inherit_location
from autograph.source.templates import replace_expr

__all__ = ["NESTED_CHAIN", "rewrites", "transform"]

NESTED_CHAIN = 10  # longer and/or chains and comparison chains are one flat call

_FUNCTIONS = {gast.And: "ag__.and_", gast.Or: "ag__.or_"}


def _rereadable(node: gast.expr) -> bool:
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, (gast.Name, gast.Constant))


class _Logical:
    """The rewrites of one function's nodes; each node's operands are rewritten already."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # id of a not_ call made -> (the call, kept alive so its id stays its own; operand; how many nots)
        self.nots: dict[int, tuple[gast.expr, gast.expr, int]] = {}

    def _calls(self, node: gast.expr, template: str, values: list[gast.expr]) -> gast.expr:
        """`values` folded from the right into nested calls of `template`, each naming `node`'s try/with."""
        within = self.ctx.within_of(node)
        if len(values) > NESTED_CHAIN:
            return self._flat_call(node, template.split("(", 1)[0], values, within)
        result = values[-1]
        for value in reversed(values[:-1]):
            result = replace_expr(template, a=value, b=result)
            if within is not None:
                result.keywords.append(within_keyword(within))
        inherit_location(result, node)
        return result

    def _flat_call(self, node: gast.expr, function: str, values: list[gast.expr], within: tuple | None) -> gast.expr:
        """`function(a, lambda: b, lambda: c, ...)`: a long chain as one call, one bracket deep."""
        result = replace_expr(f"{function}(a, lambda: b)", a=values[0], b=values[1])
        for value in values[2:]:
            result.args.append(replace_expr("lambda: b", b=value))
        if within is not None:
            result.keywords.append(within_keyword(within))
        inherit_location(result, node)
        return result

    def bool_op(self, node: gast.BoolOp) -> gast.expr:
        if binds_or_suspends(node.values):
            return node
        self.ctx.lazy_operands = True  # an and_/or_ call (not_ takes no lazy operand)
        return self._calls(node, f"{_FUNCTIONS[type(node.op)]}(a, lambda: b)", node.values)

    def unary_op(self, node: gast.UnaryOp) -> gast.expr:
        if not isinstance(node.op, gast.Not):
            return node
        _, operand, count = self.nots.pop(id(node.operand), (None, node.operand, 0))
        count += 1
        if count > 2:  # `not not not a` is `not a`: bool(a) is taken once either way
            new = replace_expr("ag__.not_(ag__.not_(a))" if count % 2 == 0 else "ag__.not_(a)", a=operand)
        else:
            new = replace_expr("ag__.not_(a)", a=node.operand)
        self.nots[id(new)] = (new, operand, count)
        inherit_location(new, node)
        return new

    def compare(self, node: gast.Compare) -> gast.expr:
        middles = node.comparators[:-1]
        if len(node.ops) < 2 or not all(_rereadable(m) for m in middles) or binds_or_suspends(node.comparators):
            return node
        self.ctx.lazy_operands = True
        operands = [node.left, *node.comparators]
        last = len(operands) - 1
        parts = [
            gast.Compare(left=_reread(operands[i], i, last), ops=[op], comparators=[_reread(operands[i + 1], i + 1, last)])
            for i, op in enumerate(node.ops)
        ]
        return self._calls(node, "ag__.and_(a, lambda: b)", parts)


def _reread(node: gast.expr, index: int, last: int) -> gast.expr:
    """A fresh copy for middle operands, which appear in two comparisons.

    The first and last operands appear once and stay the user's nodes, with
    their locations (a copy is parsed anew: its lines start at 1). The last
    one may hold calls that another rewrite given in the same walk has
    rewritten already; kept as it is, it is the same tree in either order.
    """
    if index == 0 or index == last:
        return node
    return gast.parse(gast.unparse(node).strip(), mode="eval").body


def rewrites(node: gast.AST, ctx: Context) -> dict[type, Rewrite]:
    """The rewrites of `and`/`or`, `not` and chains, for `rewrite_expressions`."""
    logical = _Logical(ctx)
    return {gast.BoolOp: logical.bool_op, gast.UnaryOp: logical.unary_op, gast.Compare: logical.compare}


def transform(node: gast.AST, ctx: Context) -> gast.AST:
    """Rewrite `and`, `or`, `not` and chained comparisons of the function."""
    rewrite_expressions(node, rewrites(node, ctx))
    return node
