"""break_statements: `break` becomes a flag; the loop stops on it, `else:` runs unless it is set.

    for x in xs:                      break_ = False
        if x < 0:                     for x in xs:                 # extra test: not break_
            break            ->           if x < 0:
        total += x                            break_ = True
    else:                                 else:
        total = -1                            total += x
                                      if not break_:
                                          total = -1

A while loop's test becomes `not break_ and <test>` (`not break_` for
`while True:`); a for loop records the
flag in `ctx.loop_flags`, which the control flow converter turns into the
loop's `extra_test`. A loop without `break` has its `else:` moved after it.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import Transformer
from autograph.converters.context import Context
from autograph.converters.guards import JumpLowering, contains_jump, loops_in_order
from autograph.source.origins import inherit_location
from autograph.source.templates import replace, replace_expr

__all__ = ["transform"]


class _Breaks(Transformer):
    statements_only = True  # its rewrites are all of statements

    def __init__(self, ctx: Context, fn: gast.FunctionDef) -> None:
        self.ctx = ctx
        # flag names minted outermost loop first, so the outer loop reads `break_`
        self.flags = {
            loop: ctx.namespace.new("break_")
            for loop in loops_in_order(fn.body)
            if any(contains_jump(s, gast.Break, into_loops=False) for s in loop.body)
        }

    def visit_FunctionDef(self, node: gast.FunctionDef) -> gast.FunctionDef:
        return node  # nested functions are converted on their own

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_While(self, node: gast.While) -> list[gast.stmt]:
        return self._loop(node)

    def visit_For(self, node: gast.For) -> list[gast.stmt]:
        return self._loop(node)

    def _loop(self, node: gast.While | gast.For) -> list[gast.stmt]:
        self.generic_visit(node)  # inner loops first: their breaks are theirs
        orelse, node.orelse = node.orelse, []
        if not any(contains_jump(s, gast.Break, into_loops=False) for s in node.body):
            return [node, *orelse]
        flag = self.flags.get(node) or self.ctx.namespace.new("break_")
        lowering = JumpLowering(gast.Break, flag, lambda stmt: _set_flag(flag, stmt, self.ctx), rest_into_else=True)
        node.body = lowering.block(node.body)
        if isinstance(node, gast.While):
            if isinstance(node.test, gast.Constant) and node.test.value is True:
                node.test = replace_expr("not flag", flag=flag)  # `while True:` stops on the flag alone
            else:
                node.test = replace_expr("not flag and test", flag=flag, test=node.test)
            inherit_location(node.test, node)
        else:
            self.ctx.loop_flags.setdefault(node, []).append(flag)
        before = replace("flag = False", flag=flag)
        after = replace("if not flag:\n    orelse", flag=flag, orelse=orelse) if orelse else []
        inherit_location(before, node)
        if orelse:
            inherit_location(after, orelse[0])
        return [*before, node, *after]


def _set_flag(flag: str, stmt: gast.stmt, ctx: Context) -> list[gast.stmt]:
    new = replace("flag = True", flag=flag)
    inherit_location(new, stmt)
    ctx.flag_stores += new
    return new


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Lower every `break` of the function's own loops."""
    transformer = _Breaks(ctx, node)
    node.body = [s for stmt in node.body for s in _as_list(transformer.visit(stmt))]
    return node


def _as_list(result: gast.AST | list) -> list:
    return result if isinstance(result, list) else [result]
