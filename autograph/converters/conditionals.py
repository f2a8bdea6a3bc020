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
from autograph.source.templates import replace

__all__ = ["convert_if"]

_BRANCH = """
def branch():
    nonlocal names
    global globals_
    body
"""


def _branch(name: str, body: list[gast.stmt], plan: StatePlan, modified: frozenset[str], loc: gast.AST) -> list[gast.stmt]:
    return replace(
        _BRANCH,
        loc,
        branch=name,
        names=[n for n in plan.names if n in modified],
        globals_=[n for n in plan.globals if n in modified],
        body=body,
    )


def convert_if(
    node: gast.If,
    plan: StatePlan,
    modified: tuple[frozenset[str], frozenset[str]],
    ctx: Context,
    helpers: dict[str, str],
) -> list[gast.stmt]:
    """The statements replacing `node`; `modified` holds the names each branch binds."""
    code, get_state, set_state = state_functions(plan, ctx, helpers, node)
    if_body = helpers["if_body"]
    code += _branch(if_body, node.body, plan, modified[0], node)
    if node.orelse:
        else_body = helpers["else_body"]
        code += _branch(else_body, node.orelse, plan, modified[1], node)
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
