"""unbound_reads: a read of a name that may still hold the Undefined placeholder is checked.

Inside converted control flow a name no binding reached yet holds
`ag__.Undefined('n')`. Arithmetic on it raises as Python would, but a plain
copy (`j = n`, `[n]`, `f(n)`) would not, so such reads are checked in place
and raise UnboundLocalError where the original read does (there is
deliberately no `ag__.ld` wrapping every read):

    for i in range(2):                  def loop_body(i):
        if i > c:                           ...
            n = 1                           j = ag__.raise_unbound('n') if ag__.is_undefined(n) else n
        j = n
"""

from __future__ import annotations

import gast

from autograph.analysis import Analyses
from autograph.analysis.traversal import BLOCK_FIELDS, CHILD_FIELDS, Transformer
from autograph.converters.operator_calls import called_operator
from autograph.source.templates import load_name

__all__ = ["check_reads"]

# scopes whose reads happen later (or not at all) are left alone
_DEFERRED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, gast.GeneratorExp)


def _header(stmt: gast.stmt, analyses: Analyses) -> tuple[list[str] | None, object] | None:
    """The fields of `stmt` it evaluates itself (None: all of them) and the CFG node they are read at."""
    cfg = analyses.cfg
    kind = type(stmt)
    if kind is gast.If:
        return ["test"], cfg.entry_of.get(stmt)
    if kind is gast.While:
        return ["test"], cfg.head_of.get(stmt)
    if kind is gast.For:
        return ["iter"], cfg.entry_of.get(stmt)
    if kind is gast.With:
        return ["items"], cfg.entry_of.get(stmt)
    if kind is gast.Match:
        return ["subject"], cfg.entry_of.get(stmt)
    if kind in _DEFERRED_KINDS or BLOCK_FIELDS[kind]:
        return None  # try (its handlers' types are rare reads): only its blocks are checked
    return None, cfg.entry_of.get(stmt)


def check_reads(stmt: gast.stmt, names: frozenset[str], analyses: Analyses) -> frozenset[str]:
    """Wrap, in `stmt`'s own expressions, the reads of `names` that may be unbound there; the names
    of those that were (empty, so false, when none was)."""
    if not names:
        return _NONE
    header = _header(stmt, analyses)
    if header is None or header[1] is None:
        return _NONE
    fields, point = header
    may_be_unbound = analyses.definitions.may_be_unbound
    risky = {n for n in names if may_be_unbound(point, n)}
    if not risky:
        return _NONE
    if fields is None:
        fields = type(stmt)._fields
    if not any(_reads_any(getattr(stmt, field, None), risky) for field in fields):
        return _NONE  # the common case: nothing to wrap, found without rebuilding the fields
    wrap = _Wrap(risky)
    for field in fields:
        value = getattr(stmt, field, None)
        if isinstance(value, gast.AST):
            setattr(stmt, field, wrap.visit(value))
        elif isinstance(value, list):
            setattr(stmt, field, [wrap.visit(v) if isinstance(v, gast.AST) else v for v in value])
    return frozenset(risky)


_NONE: frozenset[str] = frozenset()


def _reads_any(value: object, names: set[str]) -> bool:
    """Whether `_Wrap` would wrap a read in `value` (a field's value): the same nodes, only looked at."""
    stack = list(value) if type(value) is list else [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is gast.Name:
            if node.id in names and isinstance(node.ctx, gast.Load):
                return True
            continue
        if kind is gast.Call and called_operator(node) in _LAZY_OPERATORS:
            stack.extend(arg.body if type(arg) is gast.Lambda else arg for arg in node.args)
            continue
        if kind in _DEFERRED_KINDS or not isinstance(node, gast.AST):
            continue
        for field in CHILD_FIELDS[kind]:
            child = getattr(node, field, None)
            if type(child) is list:
                stack.extend(child)
            elif child is not None:
                stack.append(child)
    return False


_DEFERRED_KINDS = frozenset(_DEFERRED)


class _Wrap(Transformer):
    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit(self, node: gast.AST) -> gast.AST:
        if called_operator(node) in _LAZY_OPERATORS:
            # and_/or_/if_exp take their operands as lambdas they call at once: their reads
            # count, as do those of the arguments passed as they are (if_exp's condition)
            node.args = [self._operand(arg) for arg in node.args]
            return node
        if isinstance(node, _DEFERRED):
            return node
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load) and node.id in self.names:
                return _checked(node)
            return node
        return self.generic_visit(node)

    def _operand(self, arg: gast.expr) -> gast.expr:
        if isinstance(arg, gast.Lambda):
            arg.body = self.visit(arg.body)
            return arg
        return self.visit(arg)


_LAZY_OPERATORS = frozenset({"and_", "or_", "if_exp", "if_exp_chain"})


def _checked(name: gast.Name) -> gast.expr:
    """`(ag__.raise_unbound('n') if ag__.is_undefined(n) else n)`: the read Python refuses, refused."""
    def ag(attr: str, arg: gast.expr) -> gast.Call:
        func = gast.Attribute(value=load_name("ag__"), attr=attr, ctx=gast.Load())
        return gast.Call(func=func, args=[arg], keywords=[])

    unbound = ag("raise_unbound", gast.Constant(value=name.id, kind=None))
    checked = gast.IfExp(test=ag("is_undefined", load_name(name.id)), body=unbound, orelse=name)
    for node in gast.walk(checked):
        gast.copy_location(node, name)
    return checked

