"""operand_functions: the lazy operands of `if_exp`, `and_`, `or_` in helpers become named functions.

    def loop_body():                                    def if_true():
        nonlocal n                                          return n // 2
        n = ag__.if_exp(c, lambda: n // 2,       ->     def if_false():
                        lambda: 3 * n + 1, 'c')             return 3 * n + 1
                                                        def loop_body():
                                                            nonlocal n
                                                            n = ag__.if_exp(c, if_true, if_false, 'c')

A lambda is a new closure each time its expression runs: once per iteration
in a loop body or test, and in the branches those run. Written as a def beside the statement that uses it,
it is a helper like the others, and `hoisting` moves it out as far as its
free names allow, so it is made once per call of the user's function. The
def reads the same cells the lambda read (it is defined in the same
function), so the move is exact. Only lambdas of the function's own scope
are moved: those inside comprehensions, lambdas or nested functions may
read names bound there. Operands outside loops run once per call and stay
lambdas.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import CHILD_FIELDS, INNER_BLOCKS
from autograph.converters.context import Context
from autograph.converters.operator_calls import called_operator
from autograph.source.templates import load_name, replace

__all__ = ["transform"]

# operator -> (position of its first lazy operand, the names of its operands' functions);
# the left operand of and_/or_ is evaluated before the call
_LAZY = {
    "if_exp": (1, ("if_true", "if_false")),
    "and_": (1, ("and_right",)),
    "or_": (1, ("or_right",)),
}
# loop operator -> positions of the functions it calls per iteration (test, body)
_LOOP_FUNCTIONS = {"while_stmt": (0, 1), "for_stmt": (1, 2)}
_SCOPES = frozenset({gast.Lambda, gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef,
                     gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp})


def _lazy_calls(node: gast.AST, out: list[gast.Call]) -> list[gast.Call]:
    """The lazy operator calls (`ag__.if_exp(...)`, ...) among `node` and the nodes it holds, in
    preorder, nested scopes left out, appended to `out`.

    Read through the per-class child-field table: this runs over every statement of
    every loop helper, where asking each field of each node whether it holds a node
    (`gast.iter_child_nodes`) cost about a tenth of a conversion. Names and constants,
    the commonest nodes, are passed over without a call.
    """
    if type(node) is gast.Call and called_operator(node) in _LAZY:
        out.append(node)
    for name in CHILD_FIELDS[type(node)]:
        value = getattr(node, name, None)
        if type(value) is list:
            for item in value:
                kind = type(item)
                if kind is not gast.Name and kind is not gast.Constant and kind not in _SCOPES and isinstance(item, gast.AST):
                    _lazy_calls(item, out)
        else:
            kind = type(value)
            if kind is not gast.Name and kind is not gast.Constant and kind not in _SCOPES and isinstance(value, gast.AST):
                _lazy_calls(value, out)
    return out


def _no_args(node: gast.expr) -> bool:
    if not isinstance(node, gast.Lambda):
        return False
    args = node.args
    return not (args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg)


def _operand_defs(stmt: gast.stmt, ctx: Context) -> list[gast.FunctionDef]:
    """Replace the lazy operand lambdas of `stmt`'s own expressions by names; their defs."""
    defs: list[gast.FunctionDef] = []
    for node in _lazy_calls(stmt, []):
        first, names = _LAZY[called_operator(node)]
        for offset, hint in enumerate(names):
            index = first + offset
            if index >= len(node.args) or not _no_args(node.args[index]):
                continue
            lam = node.args[index]
            name = ctx.namespace.new(hint)
            defs += replace("def name():\n    return body", lam, name=name, body=lam.body)
            node.args[index] = load_name(name)
    if defs:
        ctx.analysed.pop(stmt, None)  # its reads are not the analysed ones any more
    return defs


def _loop_functions(block: list[gast.stmt]) -> set[str]:
    """Names of the test and body functions the loops of `block` call (`while_stmt`, `for_stmt`)."""
    names: set[str] = set()
    for stmt in block:
        call = stmt.value if isinstance(stmt, gast.Expr) else None
        positions = _LOOP_FUNCTIONS.get(called_operator(call), ())
        if not positions:
            continue
        names |= {a.id for i, a in enumerate(call.args) if i in positions and isinstance(a, gast.Name)}
    return names


class _Lifter:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def block(self, block: list[gast.stmt], in_loop: bool) -> list[gast.stmt]:
        """`block` with the operands of helpers that run per iteration given defs, at any depth."""
        generated = self.ctx.generated
        loop_functions: set[str] | None = None  # read off the block when a helper first asks
        for stmt in block:
            kind = type(stmt)
            if kind is gast.FunctionDef:
                if id(stmt) in generated:
                    inside = in_loop
                    if not inside:
                        if loop_functions is None:
                            loop_functions = _loop_functions(block)
                        inside = stmt.name in loop_functions
                    if inside:
                        stmt.body = self.lift(stmt.body)
                    stmt.body = self.block(stmt.body, inside)
                continue
            for field in INNER_BLOCKS[kind]:
                inner = getattr(stmt, field, None)
                if not inner:
                    continue
                if field == "handlers":
                    for handler in inner:
                        handler.body = self.block(handler.body, in_loop)
                else:
                    setattr(stmt, field, self.block(inner, in_loop))
        return block

    def lift(self, body: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        analysed = self.ctx.analysed
        for stmt in body:
            kind = type(stmt)
            if kind is not gast.FunctionDef and kind is not gast.AsyncFunctionDef and kind is not gast.ClassDef:
                # a user's statement as analysed that reads no `ag__` calls no operator: not walked
                effects = analysed.get(stmt)
                defs = _operand_defs(stmt, self.ctx) if effects is None or "ag__" in effects.reads else None
                if defs:
                    self.ctx.generated.update((id(d), d) for d in defs)
                    out += defs
            out.append(stmt)
        return out


def transform(fn: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Give every lazy operand of a helper that runs once per loop iteration a def of its own."""
    if not ctx.lazy_operands:
        return fn  # no lazy operator call to look for
    fn.body = _Lifter(ctx).block(fn.body, in_loop=False)
    return fn
