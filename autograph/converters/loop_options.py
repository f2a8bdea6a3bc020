"""loop_options: a loop inside a helper takes its constant options from a name bound once per call.

    def loop_body(itr):                             def loop_body(itr):
        nonlocal n                                      nonlocal n
        n = itr                                         n = itr
        ag__.for_stmt(range(n), loop_body_1, ...,  ->   ag__.for_stmt(range(n), loop_body_1, ...,
                      opts={'iterate_names': 'd'})                    opts=opts)
    ag__.for_stmt(range(m), loop_body, ...)         opts = {'iterate_names': 'd'}
                                                    ag__.for_stmt(range(m), loop_body, ...)

A dict display builds a new dict each time it runs: an inner loop's options
were built once per iteration of the outer loop, and in a Python-mode
nested loop that was a visible share of the time. Operators only read
`opts`, so one dict serves every run. Options that are all constants are
bound in the user's function, right after the helper defs that use them
(before the statement that calls those helpers); options that read names
(`shape_invariants`) stay where they are. Runs after hoisting, which
decides where the helpers live.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import INNER_BLOCKS, rewrite_inner_blocks
from autograph.converters.context import Context
from autograph.converters.operator_calls import called_operator
from autograph.source.templates import load_name, replace

__all__ = ["transform"]

_LOOPS = frozenset({"while_stmt", "for_stmt"})


def _constant_dict(node: gast.expr) -> bool:
    return type(node) is gast.Dict and all(
        type(part) is gast.Constant for part in node.keys + node.values
    )


class _Binder:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        """`block` (of the user's function) with the options its helpers use bound after their defs."""
        out: list[gast.stmt] = []
        pending: list[gast.stmt] = []
        for stmt in block:
            if isinstance(stmt, gast.FunctionDef):
                if id(stmt) in self.ctx.generated:
                    pending += self.helper(stmt.body)
                out.append(stmt)
                continue
            out += pending
            pending = []
            rewrite_inner_blocks(stmt, self.block)
            out.append(stmt)
        return out + pending

    def helper(self, body: list[gast.stmt]) -> list[gast.stmt]:
        """Replace the constant options of the loops in a helper's body, at any depth; their bindings."""
        bindings: list[gast.stmt] = []
        for stmt in body:
            kind = type(stmt)
            if kind is gast.Expr:
                call = stmt.value
                if called_operator(call) in _LOOPS:
                    for keyword in call.keywords:
                        if keyword.arg == "opts" and _constant_dict(keyword.value):
                            name = self.ctx.namespace.new("opts")
                            bindings += replace("name = opts", keyword.value, name=name, opts=keyword.value)
                            keyword.value = load_name(name)
                continue
            if kind is gast.FunctionDef:
                if id(stmt) in self.ctx.generated:
                    bindings += self.helper(stmt.body)
                continue  # the user's nested scopes were converted on their own
            for field in INNER_BLOCKS[kind]:
                inner = getattr(stmt, field, None)
                if not inner:
                    continue
                if field == "handlers":
                    for handler in inner:
                        bindings += self.helper(handler.body)
                else:
                    bindings += self.helper(inner)
        return bindings


def transform(fn: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Bind the constant options of every loop inside a generated helper once per call."""
    if not ctx.loops_in_helpers:
        return fn  # every loop's operator call is in the user's function itself
    fn.body = _Binder(ctx).block(fn.body)
    return fn
