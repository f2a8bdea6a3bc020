"""conditionals: `if`/`elif`/`else` -> `ag__.if_stmt` over two branch functions.

    if x > 0:                  def if_body(): nonlocal y; y = x
        y = x         ->       def else_body(): nonlocal y; y = -x
    else:                      ag__.if_stmt(x > 0, if_body, else_body, ('y',), nouts=1)
        y = -x

(One statement per line in the real output.) `elif` is an `if` in the else
branch and is converted the same way, innermost first. An `if` without
`else` passes None as its else branch; one whose body is only `pass` (what
`if c: continue` leaves when the code after it moved into its `else:`) passes
None as its body.

Every `if` is one operator call, even in Python mode, where it costs a frame
(the operator) besides the branch's. Testing a Python bool in the generated
code itself (`cond = x > 0`, then `if cond is False: else_body()` and the
call only otherwise) was measured: fizzbuzz's elif chain fell from 4.7x to
3.4x the original in instructions, but every `if` printed as four or five
lines of dispatch around its call. `to_code` is read by people, so the
operator decides.
"""

from __future__ import annotations

import gast

from autograph.converters.context import Context
from autograph.converters.if_chains import Arm, chained
from autograph.converters.state import (
    StatePlan,
    call_and_unbind,
    names_tuple,
    operator_call,
    state_functions,
    undefined_inits,
)
from autograph.source.origins import inherit_location
from autograph.source.templates import constant, load_name, replace

__all__ = ["convert_if", "needs_if_body"]


def _only_pass(block: list[gast.stmt]) -> bool:
    return all(isinstance(s, gast.Pass) for s in block)


def needs_if_body(node: gast.If) -> bool:
    """False for `if c: pass / else: rest`, what `if c: continue` leaves once the code after it moved
    into its `else:`: if_stmt gets None as its body."""
    return not (_only_pass(node.body) and not _only_pass(node.orelse))


_BRANCH = """
def branch():
    nonlocal names
    global globals_
    body
"""


def _branch(
    name: str, body: list[gast.stmt], plan: StatePlan, modified: frozenset[str], ctx: Context, loc: gast.AST
) -> list[gast.stmt]:
    code = replace(
        _BRANCH,
        loc,
        branch=name,
        names=[n for n in plan.names if n in modified],
        globals_=[n for n in plan.globals if n in modified],
        body=body,
    )
    if plan.private:
        ctx.private[id(code[0])] = frozenset(plan.private)
    return code


def convert_if(
    node: gast.If,
    plan: StatePlan,
    modified: tuple[frozenset[str], frozenset[str]],
    ctx: Context,
    helpers: dict[str, str],
    test_binds: tuple[tuple[str, ...], tuple[str, ...]] | None = ((), ()),
) -> list[gast.stmt]:
    """The statements replacing `node`; `modified` holds the names each branch binds, `test_binds`
    those its test binds with `:=` (see if_chains.test_binds)."""
    if _only_pass(node.orelse):
        node.orelse = []  # `else: continue` once its dead flag store is dropped
    state_code, state = state_functions(plan, ctx, helpers, node)
    body: gast.expr = constant(None)
    body_code: list[gast.stmt] = []
    if needs_if_body(node):
        body_code = _branch(helpers["if_body"], node.body, plan, modified[0], ctx, node)
        body = load_name(helpers["if_body"])
    orelse: gast.expr = constant(None)
    else_code: list[gast.stmt] = []
    if node.orelse:
        else_code = _branch(helpers["else_body"], node.orelse, plan, modified[1], ctx, node)
        orelse = load_name(helpers["else_body"])
    generated = ctx.generated
    for helper in state_code + body_code + else_code:
        if type(helper) is gast.FunctionDef:
            generated[id(helper)] = helper
    inits = undefined_inits(plan, node)
    # every name an output (the common case): no `nouts`, and a call without keywords costs less
    keywords = [gast.keyword(arg="nouts", value=constant(plan.nouts))] if plan.nouts != len(plan.names) else []
    if plan.unread != ((), ()):  # see written_liveness
        value = gast.Tuple(elts=[names_tuple(side) for side in plan.unread], ctx=gast.Load())
        keywords.append(gast.keyword(arg="unread", value=value))
    call = operator_call("if_stmt", [node.test, body, orelse], plan, keywords + state, node)
    around = call_and_unbind(plan, call, node)
    code = state_code + body_code + else_code + inits + around
    arm = Arm(node.test, body, names_tuple(plan.names), keywords + state, state_code + body_code, test_binds,
              helpers.get("if_test"))
    inherit_location([body, arm.names], node)

    def around_call(stmt: gast.stmt) -> list[gast.stmt]:
        return inits + call_and_unbind(plan, [stmt], node)

    simple = not inits and len(around) == 1
    return chained(node, arm, (orelse, else_code), plan.within, bool(plan.private), code, around_call, simple, ctx)
