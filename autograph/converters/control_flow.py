"""control_flow: every if/while/for of the function becomes an operator call, innermost first.

Plans (which names each statement carries) come from the analyses of the
function as it is before this pass; see `state.py`, `conditionals.py`, `loops.py`.
"""

from __future__ import annotations

import dataclasses

import gast

from autograph.analysis import Analyses
from autograph.analysis.traversal import BLOCK_FIELDS, statements
from autograph.converters.catching import catching_blocks
from autograph.converters.conditionals import convert_if, needs_if_body
from autograph.converters.context import Context
from autograph.converters.if_chains import test_binds
from autograph.converters.loops import convert_for, convert_while, target_is_parameter
from autograph.converters.none_before_loop import bound_before_read, set_to_none
from autograph.converters.state import StatePlan, needs_state_functions, plan_if, plan_loop
from autograph.converters.unbound_reads import check_reads
from autograph.converters.written_liveness import unread_after_if, unread_at_head

__all__ = ["transform"]

_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef})
_BRANCHES = frozenset({gast.If, gast.While, gast.For})


class _ControlFlow:
    """Rewrites statements innermost first, walking statement blocks only."""

    def __init__(self, ctx: Context, plans: dict[gast.AST, StatePlan], modified: dict, helpers: dict,
                 test_binds: dict) -> None:
        self.ctx = ctx
        self.test_binds = test_binds
        self.plans = plans
        self.modified = modified
        self.helpers = helpers
        self.depth = 0  # the if/while/for statements around the one being converted

    def block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for stmt in block:
            out.extend(self.statement(stmt))
        return out

    def statement(self, node: gast.stmt) -> list[gast.stmt]:
        kind = type(node)
        if not BLOCK_FIELDS[kind] or kind in _SCOPES:
            return [node]  # a simple statement, or a nested scope converted on its own
        branch = kind in _BRANCHES
        if branch:
            if self.depth and kind is not gast.If:
                self.ctx.loops_in_helpers = True  # its operator call will be in a helper
            self.depth += 1
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list) and inner:
                setattr(node, field, self.block(inner))
        for child in getattr(node, "handlers", None) or getattr(node, "cases", None) or ():
            child.body = self.block(child.body)
        if branch:
            self.depth -= 1
        if isinstance(node, gast.If):  # it notes its helpers itself: a flat elif chain's code holds every arm's
            binds = self.test_binds.get(node, ((), ()))
            return convert_if(node, self.plans[node], self.modified[node], self.ctx, self.helpers[node], binds)
        if isinstance(node, gast.While):
            code = convert_while(node, self.plans[node], self.ctx, self.helpers[node])
        elif isinstance(node, gast.For):
            code = convert_for(node, self.plans[node], self.ctx, self.helpers[node])
        else:
            return [node]
        generated = self.ctx.generated
        for s in code:
            if type(s) is gast.FunctionDef:
                generated[id(s)] = s
        return code


class _Planner:
    """Plans every if/while/for in source order, outermost first.

    A name an enclosing statement initialises with Undefined is bound inside
    it, so inner statements neither initialise nor unbind it again.
    """

    def __init__(self, ctx: Context, analyses: Analyses, dels: bool = True, fn: gast.FunctionDef | None = None) -> None:
        self.ctx = ctx
        self.fn = fn
        self.none: frozenset[str] | None = None  # the names fn sets to None (see none_before_loop), when asked
        self.analyses = analyses
        self.dels = dels  # whether the function holds a `del` (see state._still)
        self.plans: dict[gast.AST, StatePlan] = {}
        self.modified: dict[gast.AST, tuple[frozenset[str], frozenset[str]]] = {}
        self.helpers: dict[gast.AST, dict[str, str]] = {}
        self.test_binds: dict[gast.AST, tuple | None] = {}  # an if's test's `:=` names (see if_chains.test_binds)
        self.analysed = ctx.analysed  # the simple statements as analysed (see Context.analysed)
        self.checked: set[str] = set()  # names whose reads check_reads wrapped, in the block being planned
        self.effects = analyses.activity.effects

    def block(self, block: list[gast.stmt], initialized: frozenset[str], within: gast.stmt | None = None) -> None:
        """Plan the statements of `block`; `within`: the innermost try or with that may catch their exceptions."""
        for stmt in block:
            if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                continue
            inner = initialized
            if type(stmt) not in _BRANCHES:
                rewritten = check_reads(stmt, initialized, self.analyses) if initialized else frozenset()
                self.checked |= rewritten
                if not BLOCK_FIELDS[type(stmt)]:
                    if not rewritten:
                        self.analysed[stmt] = self.effects(stmt)
                    continue  # a simple statement: no blocks to plan
            else:
                plan = self._plan(stmt)
                if initialized & set(plan.unbound):
                    plan = dataclasses.replace(
                        plan,
                        unbound=tuple(n for n in plan.unbound if n not in initialized),
                        still_unbound=tuple(n for n in plan.still_unbound if n not in initialized),
                    )
                self.helpers[stmt] = _helper_names(stmt, plan, self.ctx, self.test_binds.get(stmt))  # outermost first
                inner = initialized | set(plan.unbound)
                outer_checked, self.checked = self.checked, set(check_reads(stmt, inner, self.analyses))
            for nested, catches in catching_blocks(stmt):
                self.block(nested, inner, stmt if catches else within)
            if type(stmt) in _BRANCHES:
                if self.checked & set(plan.unbound):
                    plan = dataclasses.replace(plan, placeholders=True)  # see StatePlan.placeholders
                    names = self.helpers[stmt]
                    names.setdefault("get_state", self.ctx.namespace.new("get_state"))
                    names.setdefault("set_state", self.ctx.namespace.new("set_state"))
                if needs_state_functions(plan) and initialized & set(plan.names):
                    # an enclosing statement's name its get_state may find unbound (see state.undefined_inits)
                    plan = dataclasses.replace(
                        plan, deleted=tuple(n for n in plan.names if n in initialized or n in plan.deleted)
                    )
                self.checked |= outer_checked
                self.plans[stmt] = self._guard(plan, within)

    def _guard(self, plan: StatePlan, within: gast.stmt | None) -> StatePlan:
        if within is None:
            return plan
        keyword = "try" if isinstance(within, gast.Try) else "with"
        return dataclasses.replace(plan, guarded=True, within=(keyword, self.ctx.user_line(within)))

    def _plan(self, stmt: gast.stmt) -> StatePlan:
        if type(stmt) is gast.If:
            activity = self.analyses.activity
            branches = self.modified[stmt] = (activity.modified(stmt.body), activity.modified(stmt.orelse))
            plan = plan_if(stmt, self.analyses, branches, self.dels)
            if self.ctx.walrus:
                self.test_binds[stmt] = test_binds(stmt.test, activity.globals)
            if self.ctx.written_liveness:
                plan = dataclasses.replace(plan, unread=unread_after_if(self.ctx, stmt, plan.names[: plan.nouts]))
            return plan
        plan = plan_loop(stmt, self.analyses, self.dels)
        if self.ctx.written_liveness:
            plan = dataclasses.replace(plan, unread_at_head=unread_at_head(self.ctx, stmt, plan.names))
        if not plan.names:
            return plan
        if self.none is None:
            self.none = set_to_none(self.fn.body)
        bound = bound_before_read(stmt, plan.names, self.analyses, self.none)
        return dataclasses.replace(plan, bound_before_read=bound) if bound else plan


def _helper_names(stmt: gast.stmt, plan: StatePlan, ctx: Context, binds: tuple | None = None) -> dict[str, str]:
    """Names of the functions that replace `stmt`, minted outermost first so outer ones read plain."""
    new = ctx.namespace.new
    names = {"get_state": new("get_state"), "set_state": new("set_state")} if needs_state_functions(plan) else {}
    if isinstance(stmt, gast.If):
        if binds and binds != ((), ()):
            names["if_test"] = new("if_test")  # a flat elif chain asks the test through a def (see if_chains)
        if needs_if_body(stmt):
            names["if_body"] = new("if_body")
        if stmt.orelse:
            names["else_body"] = new("else_body")
        return names
    names["loop_body"] = new("loop_body")
    if isinstance(stmt, gast.While):
        if ctx.walrus and any(type(n) is gast.NamedExpr for n in gast.walk(stmt.test)):
            names["loop_test"] = new("loop_test")  # a test that binds names is a def (see loops)
        return names
    if not target_is_parameter(stmt, plan):
        names["itr"] = new("itr")
    return names


def transform(node: gast.FunctionDef, ctx: Context, analyses: Analyses) -> gast.FunctionDef:
    """Rewrite the function's own control flow statements."""
    planner = _Planner(ctx, analyses, any(type(s) is gast.Delete for s in statements(node.body)), node)
    planner.block(node.body, frozenset())
    node.body = _ControlFlow(ctx, planner.plans, planner.modified, planner.helpers, planner.test_binds).block(node.body)
    return node
