"""loop_operands: the values of a conditional expression in a loop are made once, outside the loop.

    def loop_body():                        if_true, if_false = (lambda: n // 2, lambda: 3 * n + 1)
        nonlocal n, steps           ->      def loop_body():
        n = ag__.if_exp(n % 2 == 0,             nonlocal n, steps
            lambda: n // 2,                     n = ag__.if_exp(n % 2 == 0, if_true, if_false, 'n % 2 == 0')
            lambda: 3 * n + 1, 'n % 2 == 0')

A lambda is a new function object each time its expression runs: in a loop
body, two per conditional expression per iteration, what most of a
Python-mode iteration of such a loop cost. Bound once, in the block that
defines the helper, it is the same function: it closes over the very same
cells, since none of the names it reads is a local of the helper (a name
the helper binds without declaring it nonlocal, or a parameter), and reads
them when if_exp calls it, as the lambda in place did. Operands that read
such a local stay where they are. Runs after hoisting, which decides where
the helpers live; only the helpers that run once per iteration of a loop
(loop bodies and tests, and the helpers inside them) are looked at.
"""

from __future__ import annotations

import gast

from autograph.analysis.activity import scope_names
from autograph.analysis.traversal import BLOCK_FIELDS
from autograph.converters.context import Context
from autograph.converters.operator_calls import called_operator
from autograph.source.templates import load_name, replace

__all__ = ["transform"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda,
           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_CLASS_CELL = frozenset({"super", "__class__"})  # zero-argument super() reads the function's own cell


class _Operands:
    def __init__(self, ctx: Context, in_loops: frozenset[int]) -> None:
        self.ctx = ctx
        self.in_loops = in_loops

    def block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        """`block` with the operands of the per-iteration helpers defined in it bound before them."""
        out: list[gast.stmt] = []
        for stmt in block:
            if type(stmt) is gast.FunctionDef and id(stmt) in self.ctx.generated:
                stmt.body = self.block(stmt.body)
                if id(stmt) in self.in_loops:
                    out += self._bind(stmt)
            elif type(stmt) not in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef):
                for field in BLOCK_FIELDS[type(stmt)]:
                    inner = getattr(stmt, field, None)
                    if type(inner) is list:
                        setattr(stmt, field, self.block(inner))
                for handler in getattr(stmt, "handlers", None) or ():
                    handler.body = self.block(handler.body)
            out.append(stmt)
        return out

    def _bind(self, helper: gast.FunctionDef) -> list[gast.stmt]:
        """The bindings of `helper`'s movable operands, which it then reads by name."""
        calls = _if_exp_calls(helper.body)
        if not calls:
            return []
        local = scope_names(helper, self.ctx.walrus).local
        bindings: list[gast.stmt] = []
        for call in calls:
            operands = call.args[1:3]
            if not all(type(o) is gast.Lambda and _movable(o, local) for o in operands):
                continue
            names = [self.ctx.namespace.new(stem) for stem in ("if_true", "if_false")]
            bindings += replace("if_true, if_false = (operand_true, operand_false)", operands[0],
                                if_true=names[0], if_false=names[1], operand_true=operands[0], operand_false=operands[1])
            call.args[1:3] = [load_name(name) for name in names]
        return bindings


def _movable(operand: gast.Lambda, local: frozenset[str]) -> bool:
    names = {n.id for n in gast.walk(operand) if type(n) is gast.Name}
    return not (names & local or names & _CLASS_CELL)


def _if_exp_calls(body: list[gast.stmt]) -> list[gast.Call]:
    """The `ag__.if_exp` calls of the helper's own code (not inside nested functions or lambdas)."""
    found: list[gast.Call] = []
    stack: list[gast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if type(node) is gast.Call and called_operator(node) == "if_exp" and len(node.args) >= 3:
            found.append(node)
            stack.append(node.args[0])
            stack.extend(node.args[3:])
            continue
        stack.extend(gast.iter_child_nodes(node))
    found.reverse()  # in source order: the names are numbered as a reader meets them
    return found


def transform(fn: gast.FunctionDef, ctx: Context, in_loops: frozenset[int]) -> gast.FunctionDef:
    """Bind the movable operands of the conditional expressions of every per-iteration helper once."""
    if in_loops and ctx.lazy_operands:
        fn.body = _Operands(ctx, in_loops).block(fn.body)
    return fn
