"""conditionals: `if`/`elif`/`else` -> `ag__.if_stmt` over two branch functions.

    if x > 0:                  def get_state(): return (y,)
        y = x                  def set_state(vars_): nonlocal y; (y,) = vars_
    else:             ->       def if_body(): nonlocal y; y = x
        y = -x                 def else_body(): nonlocal y; y = -x
                               y = ag__.Undefined('y')
                               ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('y',), 1)

(One statement per line in the real output.) `elif` is an `if` in the else
branch and is converted the same way, innermost first. An `if` without
`else` passes None as its else branch.
"""

from __future__ import annotations

import gast

from autograph.converters.context import Context
from autograph.converters.state import (
    StatePlan,
    names_tuple,
    state_functions,
    unbind_undefined,
    undefined_inits,
)
from autograph.source.origins import inherit_location
from autograph.source.templates import replace, replace_expr

__all__ = ["convert_if"]


def _only_pass(block: list[gast.stmt]) -> bool:
    return all(isinstance(s, gast.Pass) for s in block)

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
) -> list[gast.stmt]:
    """The statements replacing `node`; `modified` holds the names each branch binds."""
    if _only_pass(node.orelse):
        node.orelse = []  # `else: continue` once its dead flag store is dropped
    if _only_pass(node.body) and node.orelse:
        # `if c: continue` followed by more code leaves `if c: pass / else: rest`: run rest under `not c`
        node.test = replace_expr("ag__.not_(test)", test=node.test)
        inherit_location(node.test, node)
        node.body, node.orelse = node.orelse, []
        modified = (modified[1], modified[0])
    code, get_state, set_state = state_functions(plan, ctx, helpers, node)
    if_body = helpers["if_body"]
    code += _branch(if_body, node.body, plan, modified[0], ctx, node)
    if node.orelse:
        else_body = helpers["else_body"]
        code += _branch(else_body, node.orelse, plan, modified[1], ctx, node)
        orelse: gast.expr = gast.Name(id=else_body, ctx=gast.Load(), annotation=None, type_comment=None)
    else:
        orelse = gast.Constant(value=None, kind=None)
    code += undefined_inits(plan, node)
    code += replace(
        "ag__.if_stmt(test, if_body, orelse, get_state, set_state, names, nouts)",
        node,
        test=node.test,
        if_body=if_body,
        orelse=orelse,
        get_state=get_state,
        set_state=set_state,
        names=names_tuple(plan.names),
        nouts=gast.Constant(value=plan.nouts, kind=None),
    )
    return code + unbind_undefined(plan, node)
