"""unsupported: constructs the converter refuses, with the user's file:line and a fix.

`yield`, `await` and `async def` cannot be expressed as staged control flow;
the function is rejected before any rewrite so the error points at the
user's own line. So is `try/except*`, whose handlers may run one after
another, which the analyses do not model: converted code calls such a
function as it is, as it does generators (`runs_as_written`).
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import iter_children
from autograph.converters.context import Context

__all__ = ["CONSTRUCTS", "check", "own_nodes", "is_generator", "runs_as_written", "refuse"]

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


def runs_as_written(fn: gast.AST) -> bool:
    """A generator, or a function with try/except*: left as written inside a converted function."""
    return any(isinstance(n, _AS_WRITTEN) for n in own_nodes(fn))


CONSTRUCTS = {
    gast.Yield: "yield",
    gast.YieldFrom: "yield from",
    gast.Await: "await",
    gast.AsyncFor: "async for",
    gast.AsyncWith: "async with",
}
_TRY_STAR = getattr(gast, "TryStar", None)  # Python 3.11's except*
if _TRY_STAR is not None:
    CONSTRUCTS[_TRY_STAR] = "try/except*"
_AS_WRITTEN = (gast.Yield, gast.YieldFrom, gast.Await) + ((_TRY_STAR,) if _TRY_STAR else ())


def check(fn: gast.AST, ctx: Context) -> None:
    """Raise ConversionError at the first unsupported construct of `fn`'s own code."""
    for node in own_nodes(fn):
        if type(node) in CONSTRUCTS:
            refuse(node, ctx)


def refuse(node: gast.AST, ctx: Context) -> None:
    """Raise the ConversionError for `node`, one of the `CONSTRUCTS`."""
    construct = CONSTRUCTS[type(node)]
    if type(node) is _TRY_STAR:
        raise ctx.error(
            node,
            f"cannot convert {ctx.function_name!r}: it uses `{construct}`",
            "the handlers of except* may run one after another, which the converter does not model",
            "move the try/except* into a function marked with ag.do_not_convert; converted code "
            "calls that function as it is",
        )
    raise ctx.error(
        node,
        f"cannot convert {ctx.function_name!r}: it uses `{construct}`",
        f"`{construct}` has no staged equivalent, so autograph does not convert generators or coroutines",
        "move it into a function marked with ag.do_not_convert, or return a list instead of yielding",
    )
