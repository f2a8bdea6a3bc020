"""continue_statements: `continue` becomes a flag reset at the top of each iteration.

    for x in xs:                  for x in xs:
        if x < 0:                     continue_ = False
            if x < -5:                if x < 0:
                continue   ->             if x < -5:
            total -= 1                        continue_ = True
        total += x                        else:
                                              total -= 1
                                      if not continue_:
                                          total += x

Code after an `if` that ends in `continue` moves into its `else:` (no guard);
flag stores nothing reads are dropped after analysis, so a plain
`if x < 0: continue` leaves `if x < 0: pass / else: total += x`.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import Transformer
from autograph.converters.context import Context
from autograph.converters.guards import JumpLowering, contains_jump, loops_in_order
from autograph.source.origins import inherit_location
from autograph.source.templates import replace

__all__ = ["transform"]


class _Continues(Transformer):
    statements_only = True  # its rewrites are all of statements

    def __init__(self, ctx: Context, fn: gast.FunctionDef) -> None:
        self.ctx = ctx
        # flag names minted outermost loop first, so the outer loop reads `continue_`
        self.flags = {
            loop: ctx.namespace.new("continue_")
            for loop in loops_in_order(fn.body)
            if any(contains_jump(s, gast.Continue, into_loops=False) for s in loop.body)
        }

    def visit_FunctionDef(self, node: gast.FunctionDef) -> gast.FunctionDef:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_While(self, node: gast.While) -> gast.While:
        return self._loop(node)

    def visit_For(self, node: gast.For) -> gast.For:
        return self._loop(node)

    def _loop(self, node: gast.While | gast.For) -> gast.AST:
        self.generic_visit(node)
        if not any(contains_jump(s, gast.Continue, into_loops=False) for s in node.body):
            return node
        flag = self.flags.get(node) or self.ctx.namespace.new("continue_")

        def set_flag(stmt: gast.stmt) -> list[gast.stmt]:
            new = replace("flag = True", flag=flag)
            inherit_location(new, stmt)
            self.ctx.flag_stores.extend(new)
            return new

        lowering = JumpLowering(gast.Continue, flag, set_flag, rest_into_else=True)
        reset = replace("flag = False", flag=flag)
        inherit_location(reset, node.body[0])
        self.ctx.flag_stores.extend(reset)
        node.body = reset + lowering.block(node.body)
        return node


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Lower every `continue` of the function's own loops."""
    transformer = _Continues(ctx, node)
    node.body = [transformer.visit(stmt) for stmt in node.body]
    return node
