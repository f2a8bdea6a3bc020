"""control_flow: every if/while/for of the function becomes an operator call, innermost first.

Plans (which names each statement carries) come from the analyses of the
function as it is before this pass; see `state.py`, `conditionals.py`, `loops.py`.
"""

from __future__ import annotations

import gast

from autograph.analysis import Analyses
from autograph.converters.conditionals import convert_if
from autograph.converters.context import Context
from autograph.converters.loops import convert_for, convert_while
from autograph.converters.state import StatePlan, plan_if, plan_loop

__all__ = ["transform"]


class _ControlFlow:
    """Rewrites statements innermost first, walking statement blocks only."""

    def __init__(self, ctx: Context, plans: dict[gast.AST, StatePlan], modified: dict, helpers: dict) -> None:
        self.ctx = ctx
        self.plans = plans
        self.modified = modified
        self.helpers = helpers

    def block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for stmt in block:
            out.extend(self.statement(stmt))
        return out

    def statement(self, node: gast.stmt) -> list[gast.stmt]:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            return [node]
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list) and inner:
                setattr(node, field, self.block(inner))
        for child in getattr(node, "handlers", None) or getattr(node, "cases", None) or ():
            child.body = self.block(child.body)
        if isinstance(node, gast.If):
            code = convert_if(node, self.plans[node], self.modified[node], self.ctx, self.helpers[node])
        elif isinstance(node, gast.While):
            code = convert_while(node, self.plans[node], self.ctx, self.helpers[node])
        elif isinstance(node, gast.For):
            code = convert_for(node, self.plans[node], self.ctx, self.helpers[node])
        else:
            return [node]
        self.ctx.generated.update(id(s) for s in code if isinstance(s, gast.FunctionDef))
        return code


def _own_statements(block: list[gast.stmt]):
    """The statements of a block and of its nested blocks, in source order (not nested defs)."""
    for node in block:
        yield node
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for child in gast.iter_child_nodes(node):
            if isinstance(child, (gast.excepthandler, gast.match_case)):
                yield from _own_statements(child.body)
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _own_statements(inner)


def _helper_names(stmt: gast.stmt, plan: StatePlan, ctx: Context) -> dict[str, str]:
    """Names of the functions that replace `stmt`, minted outermost first so outer ones read plain."""
    new = ctx.namespace.new
    names = {"get_state": new("get_state"), "set_state": new("set_state")} if plan.names else {}
    if isinstance(stmt, gast.If):
        names["if_body"] = new("if_body")
        if stmt.orelse:
            names["else_body"] = new("else_body")
        return names
    names["loop_body"] = new("loop_body")
    if isinstance(stmt, gast.While):
        names["loop_test"] = new("loop_test")
        return names
    if not isinstance(stmt.target, gast.Name) or stmt.target.id in plan.names:
        names["itr"] = new("itr")
    if ctx.loop_flags.get(stmt):
        names["extra_test"] = new("extra_test")
    return names


def transform(node: gast.FunctionDef, ctx: Context, analyses: Analyses) -> gast.FunctionDef:
    """Rewrite the function's own control flow statements."""
    plans: dict[gast.AST, StatePlan] = {}
    modified: dict[gast.AST, tuple[frozenset[str], frozenset[str]]] = {}
    helpers: dict[gast.AST, dict[str, str]] = {}
    for stmt in _own_statements(node.body):
        if isinstance(stmt, gast.If):
            plans[stmt] = plan_if(stmt, analyses)
            activity = analyses.activity
            modified[stmt] = (activity.modified(stmt.body), activity.modified(stmt.orelse))
        elif isinstance(stmt, (gast.While, gast.For)):
            plans[stmt] = plan_loop(stmt, analyses)
        else:
            continue
        helpers[stmt] = _helper_names(stmt, plans[stmt], ctx)
    node.body = _ControlFlow(ctx, plans, modified, helpers).block(node.body)
    return node
