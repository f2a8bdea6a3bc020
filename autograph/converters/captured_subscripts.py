"""captured_subscripts: a captured array indexed with a computed key goes through `ag__.getitem`.

    y = TABLE[i]          ->  y = ag__.getitem(TABLE, i)
    y = self.w[i, 0]      ->  y = ag__.getitem(self.w, (i, 0))
    y = TABLE[i:j]        ->  y = ag__.getitem(TABLE, ag__.slice_(i, j, None))
    y = TABLE[0]          ->  y = TABLE[0]        (a constant key: nothing to stage)
    y = x[i]              ->  y = x[i]            (x is the function's own)

NumPy's indexing of a concrete array cannot stage a Tensor key; the operator
can (see runtime.operators.getitem). Only subscripts of a name the function
does not bind (a global, a closure value) or of an attribute (`self.table`,
`cfg.W`) are rewritten: an array in a local name is an argument (a Tensor
while tracing) or one the function made, and a Python-mode loop over `x[i]`
of an argument pays nothing.
"""

from __future__ import annotations

import gast

from autograph.source.origins import inherit_location
from autograph.source.templates import constant, replace_expr

__all__ = ["Subscripts"]


def _root(node: gast.expr) -> gast.expr:
    while isinstance(node, gast.Attribute):
        node = node.value
    return node


def _is_constant(node: gast.AST | None) -> bool:
    """A key made of literals only (`0`, `-1`, `1:3`, `(0, ...)`): NumPy indexes with it as is."""
    if node is None or isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.operand, gast.Constant)
    if isinstance(node, gast.Slice):
        return _is_constant(node.lower) and _is_constant(node.upper) and _is_constant(node.step)
    if isinstance(node, gast.Tuple):
        return all(_is_constant(e) for e in node.elts)
    return False


class Subscripts:
    """The rewrite of `gast.Subscript` reads, for `rewrite_expressions` (call_trees gives it with its own)."""

    def __init__(self, local_names: frozenset[str]) -> None:
        self.local_names = local_names

    def subscript(self, node: gast.Subscript) -> gast.expr:
        root = _root(node.value)
        if (
            not isinstance(node.ctx, gast.Load)
            or not isinstance(root, gast.Name)
            or (root is node.value and root.id in self.local_names)
            or root.id == "ag__"
            or _is_constant(node.slice)
        ):
            return node
        key = _key(node.slice)
        inherit_location([key], node)
        return replace_expr("ag__.getitem(value, key)", node, value=node.value, key=key)


def _key(node: gast.expr) -> gast.expr:
    """The key as an expression: slices (`i:j`, only valid inside brackets) become ag__.slice_ calls."""
    if isinstance(node, gast.Slice):
        parts = {name: part if part is not None else constant(None)
                 for name, part in (("lower", node.lower), ("upper", node.upper), ("step", node.step))}
        return replace_expr("ag__.slice_(lower, upper, step)", node, **parts)
    if isinstance(node, gast.Tuple) and any(isinstance(e, gast.Slice) for e in node.elts):
        return gast.Tuple(elts=[_key(e) for e in node.elts], ctx=gast.Load())
    return node
