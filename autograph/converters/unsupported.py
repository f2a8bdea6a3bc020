"""unsupported: constructs the converter refuses, with the user's file:line and a fix.

`yield`, `await` and `async def` cannot be expressed as staged control flow;
the function is rejected before any rewrite so the error points at the
user's own line.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import iter_children
from autograph.converters.context import Context

__all__ = ["CONSTRUCTS", "check", "own_nodes", "is_generator", "refuse"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)


def own_nodes(fn: gast.AST):
    """Every node of `fn`'s body outside nested functions, lambdas and classes."""
    stack = list(fn.body) if isinstance(fn.body, list) else [fn.body]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(iter_children(node))


def is_generator(fn: gast.AST) -> bool:
    return any(isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)) for n in own_nodes(fn))

CONSTRUCTS = {
    gast.Yield: "yield",
    gast.YieldFrom: "yield from",
    gast.Await: "await",
    gast.AsyncFor: "async for",
    gast.AsyncWith: "async with",
}


def check(fn: gast.AST, ctx: Context) -> None:
    """Raise ConversionError at the first unsupported construct of `fn`'s own code."""
    for node in own_nodes(fn):
        if type(node) in CONSTRUCTS:
            refuse(node, ctx)


def refuse(node: gast.AST, ctx: Context) -> None:
    """Raise the ConversionError for `node`, one of the `CONSTRUCTS`."""
    construct = CONSTRUCTS[type(node)]
    raise ctx.error(
        node,
        f"cannot convert {ctx.function_name!r}: it uses `{construct}`",
        f"`{construct}` has no staged equivalent, so autograph does not convert generators or coroutines",
        "move it into a function marked with ag.do_not_convert, or return a list instead of yielding",
    )
