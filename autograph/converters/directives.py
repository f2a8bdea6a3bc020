"""directives: `ag.set_loop_options(...)` as a loop's first statement becomes the loop's opts.

    while x > 0:                                  while x > 0:
        ag.set_loop_options(maximum_iterations=10)    x -= 1
        x -= 1                          ->   (ctx.loop_options[loop] == {'maximum_iterations': 10})

The control flow converter puts the values into the opts dict it passes to
`while_stmt`/`for_stmt`.
"""

from __future__ import annotations

import gast

from autograph.converters.context import Context

__all__ = ["transform", "OPTION_NAMES"]

OPTION_NAMES = ("maximum_iterations", "shape_invariants")


def _is_directive(stmt: gast.stmt) -> bool:
    if not isinstance(stmt, gast.Expr) or not isinstance(stmt.value, gast.Call):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


def _read(stmt: gast.Expr, ctx: Context) -> dict[str, gast.expr]:
    call = stmt.value
    options: dict[str, gast.expr] = dict(zip(OPTION_NAMES, call.args))
    for keyword in call.keywords:
        if keyword.arg not in OPTION_NAMES:
            raise ctx.error(
                stmt,
                f"unknown loop option {keyword.arg!r}",
                f"ag.set_loop_options takes {', '.join(OPTION_NAMES)}",
                "remove or rename the option",
            )
        options[keyword.arg] = keyword.value
    return options


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Move every loop's leading set_loop_options call into ctx.loop_options."""
    for loop in gast.walk(node):
        if isinstance(loop, (gast.While, gast.For)) and loop.body and _is_directive(loop.body[0]):
            ctx.loop_options[loop] = _read(loop.body[0], ctx)
            loop.body = loop.body[1:] or [gast.Pass()]
    return node
