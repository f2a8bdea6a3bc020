"""conditional_expressions: `x if c else y` -> `ag__.if_exp(c, lambda: x, lambda: y, "c")`.

Both branches stay lazy; the last argument is the condition's source text,
used in error messages about a staged conditional expression, or 'return'
for one that conditional_returns made of an if whose branches return (its
errors then speak of the if and the function's return value). One inside a
try or with block names it (`within=('try', 12)`, see catching).

A chain `a if c else b if d else e` nests one call (one bracket) per arm,
and Python's tokenizer nests 200 brackets at most while it accepts chains
of thousands of arms; a chain of more than `NESTED_CHAIN` arms is one flat
call, each arm a test, a value and the test's text, then the last value:

    ag__.if_exp_chain(lambda: c, lambda: a, 'c', lambda: d, lambda: b, 'd', ..., lambda: e)
"""

from __future__ import annotations

import gast

from autograph.converters.catching import within_keyword
from autograph.converters.conditional_returns import RETURNED
from autograph.converters.context import Context
from autograph.converters.expression_scope import Rewrite, binds_or_suspends, rewrite_expressions
from autograph.source.origins import inherit_location
from autograph.source.templates import constant, replace_expr

__all__ = ["NESTED_CHAIN", "rewrites", "transform"]

NESTED_CHAIN = 10  # a longer chain of conditional expressions is one flat call


class _IfExps:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # id of a call made -> (the call, kept alive so its id stays its own; its arms
        # (test, value, text), outermost first, or None once flat; the last value)
        self.chains: dict[int, tuple[gast.Call, list | None, gast.expr]] = {}

    def if_exp(self, node: gast.IfExp) -> gast.expr:
        """The call for `node`, whose operands are rewritten already (nested ones too)."""
        inner = self.chains.pop(id(node.orelse), None)
        # a chain's rest was checked when it was made: walking it again at every arm is quadratic
        if binds_or_suspends([node.body] if inner is not None else [node.body, node.orelse]):
            return node
        self.ctx.lazy_operands = True
        text = RETURNED if id(node) in self.ctx.returned else gast.unparse(node.test).strip()
        within = self.ctx.within_of(node)
        if binds_or_suspends([node.test]):  # a flat chain would move the test into a lambda: nested, and no chain
            return self._nested(node, text, within)
        if inner is not None and inner[1] is None:  # the rest of the chain is flat already: add this arm
            call = inner[0]
            arm = [_lazy(node.test), _lazy(node.body), constant(text)]
            inherit_location(arm, node)  # only the new nodes: the call's others have theirs
            call.args[0:0] = arm
            for field in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                setattr(call, field, getattr(node, field, None))
            self.chains[id(call)] = (call, None, inner[2])
            return call
        arms = [(node.test, node.body, text)] + (inner[1] if inner is not None else [])
        last = inner[2] if inner is not None else node.orelse
        if len(arms) > NESTED_CHAIN:
            new = replace_expr("ag__.if_exp_chain()")
            for test, body, arm_text in arms:
                new.args += [_lazy(test), _lazy(body), constant(arm_text)]
            new.args.append(_lazy(last))
            arms = None
            if within is not None:
                new.keywords.append(within_keyword(within))
            inherit_location(new, node)
        else:
            new = self._nested(node, text, within)
        self.chains[id(new)] = (new, arms, last)
        return new

    def _nested(self, node: gast.IfExp, text: str, within: tuple | None) -> gast.Call:
        new = replace_expr(
            "ag__.if_exp(test, lambda: body, lambda: orelse, text)",
            test=node.test,
            body=node.body,
            orelse=node.orelse,
            text=constant(text),
        )
        if within is not None:
            new.keywords.append(within_keyword(within))
        inherit_location(new, node)
        return new


def _lazy(value: gast.expr) -> gast.Lambda:
    return replace_expr("lambda: value", value=value)


def rewrites(node: gast.AST, ctx: Context) -> dict[type, Rewrite]:
    """The rewrite of conditional expressions, for `rewrite_expressions`."""
    return {gast.IfExp: _IfExps(ctx).if_exp}


def transform(node: gast.AST, ctx: Context) -> gast.AST:
    """Rewrite every conditional expression of the function."""
    rewrite_expressions(node, rewrites(node, ctx))
    return node
