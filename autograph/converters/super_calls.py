"""super_calls: `super()` in a method becomes `super(__class__, self)`.

Python's zero-argument `super()` takes the class from the method's `__class__`
cell and the instance from the first argument of the function it is written
in. Conversion moves statements into helpers (if and loop bodies) and operands
into lambdas, whose first argument is not the method's (most have none), so
`super()` there fails with "super(): no arguments". Written out, it finds both
wherever it runs:

    def f(self, x):                     def f(self, x):
        if x > 0:                 ->        if x > 0:
            x = super().f(x)                    x = super(__class__, self).f(x)

Only a function defined in a class body has the `__class__` cell (the pipeline
says so, `Context.in_class`); elsewhere `super()` fails in the original too and
is left as written, as are the user's own lambdas and comprehensions, where
`super()` does what Python makes of it there.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import Transformer, walk
from autograph.converters.context import Context
from autograph.source.origins import inherit_location
from autograph.source.templates import load_name

__all__ = ["transform"]

class _SuperCalls(Transformer):
    def __init__(self, first: str) -> None:
        self.first = first

    def visit_Call(self, node: gast.Call) -> gast.expr:
        self.generic_visit(node)
        func = node.func
        if type(func) is gast.Name and func.id == "super" and not node.args and not node.keywords:
            node.args = [load_name("__class__"), load_name(self.first)]
            inherit_location(node.args, node)
        return node

    def _own_scope(self, node: gast.AST) -> gast.AST:
        return node  # a scope of its own, where super() means what Python makes of it there

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _own_scope
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _own_scope


def transform(fn: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Give every zero-argument `super()` of `fn`'s own code its class and instance."""
    positional = fn.args.posonlyargs + fn.args.args
    if not ctx.in_class or not positional or _binds_super(fn):
        return fn
    transformer = _SuperCalls(positional[0].id)
    fn.body = [transformer.visit(stmt) for stmt in fn.body]
    return fn


def _binds_super(fn: gast.FunctionDef) -> bool:
    """Whether `super` names something of the user's own in `fn` (a parameter or an assignment)."""
    return any(type(n) is gast.Name and n.id == "super" and type(n.ctx) is not gast.Load for n in walk(fn))
