"""Census: what one function's tree holds, taken in a single walk before any rewrite.

The pipeline needs five things from the tree before it rewrites anything:
every identifier in it (so generated names avoid them), the constructs the
optional rewrite passes act on, the first construct the converter refuses,
the functions nested directly in it (converted on their own first), and the
names it declares global or nonlocal. Each used to be its own walk; one walk
answers all five.

    census = take_census(fn, refused={gast.Yield, gast.Await})
    census.names       # {'fn', 'x', 'np', ...}: the Namespace avoids them
    census.found       # {'break', 'logical', ...}: the passes worth running
    census.refused     # the first refused node of fn's own code, or None
    census.functions   # [inner, ...]: defs in fn's own code, not in other scopes
    census.branches    # whether fn's own code holds an if, while or for
    census.scopes      # whether fn's own code defines a function, lambda, class or generator expression
    census.declared    # ({'counter'}, {'total'}): names fn's own code declares global and nonlocal
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import gast

from autograph.analysis.traversal import CHILD_FIELDS

__all__ = ["Census", "take_census"]

# a generator expression is one too: it reads its free names later, as a closure does
_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, gast.GeneratorExp})
_DEFINITIONS = frozenset({gast.FunctionDef, gast.ClassDef})
_BRANCHES = frozenset({gast.If, gast.While, gast.For})
# node classes a rewrite pass acts on, by the name the pipeline knows the pass's trigger as
_TRIGGERS = {
    gast.Assert: "assert",
    gast.Break: "break",
    gast.Continue: "continue",
    gast.IfExp: "if_exp",
    gast.BoolOp: "logical",
    gast.NamedExpr: "walrus",
}
# every class the census notes something of (the others are only walked through)
_NOTED = frozenset(
    set(_TRIGGERS) | _DEFINITIONS
    | {gast.Name, gast.Attribute, gast.Return, gast.UnaryOp, gast.Compare, gast.For, gast.While, gast.Try, gast.With}
    | {gast.Global, gast.Nonlocal, gast.alias}
)
# names (or attributes) a pass rewrites calls of: l.append(x), ag.set_loop_options(...)
_TRIGGER_NAMES = frozenset({"append", "set_loop_options"})


@dataclass(frozen=True)
class Census:
    """The tree's identifiers, the passes' triggers, the first refused construct, the nested defs."""

    names: frozenset[str]
    found: frozenset[str]
    refused: gast.AST | None
    functions: tuple[gast.FunctionDef, ...]
    branches: bool = False
    scopes: bool = False
    # (global, nonlocal) names declared in fn's own code: `activity.declarations(fn.body)`
    declared: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


def take_census(fn: gast.FunctionDef | gast.Lambda, refused: Collection[type] = ()) -> Census:
    """Walk `fn` once (nested scopes included) and report what the pipeline needs.

    `found` holds "return" when a return is not simply the last statement;
    "logical" for `and`/`or`, `not` and chained comparisons; "loop_else" for a
    loop with an `else:`; "walrus" for `:=`; "try" for a try, "finally" for one with a
    `finally:`; "with".
    `refused` and `functions` look only at `fn`'s own
    code (not inside nested functions, lambdas or classes), visited in the
    order of `unsupported.own_nodes`, so the first refused node is the one
    `unsupported.check` reports. A plain name is never refused: names without
    an annotation are counted where they are met, never put on the stack.
    """
    tally = _Tally()
    names, found = tally.names, tally.found
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    own = list(body)
    other = [fn.args]
    if not isinstance(fn, gast.Lambda):
        names.add(fn.name)
        other += [fn.returns, *fn.decorator_list] if fn.returns is not None else fn.decorator_list
    while own or other:
        is_own = bool(own)
        node = own.pop() if is_own else other.pop()
        kind = type(node)
        if kind in _NOTED:  # most nodes are none of these: one test instead of the chain
            tally.note(node, kind, is_own)
        if is_own:
            if kind in _BRANCHES:
                tally.branches = True
            elif tally.first_refused is None and kind in refused:
                tally.first_refused = node
        if kind in _SCOPES:
            tally.scopes = tally.scopes or is_own
            stack = other
        else:
            stack = own if is_own else other
        for field in CHILD_FIELDS[kind]:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if type(item) is gast.Name and item.annotation is None:
                        # the commonest node, counted here: nothing under it, nothing refused
                        names.add(item.id)
                        if item.id in _TRIGGER_NAMES:
                            found.add(item.id)
                    elif type(item) is not gast.Constant and isinstance(item, gast.AST):
                        stack.append(item)  # a constant holds no name and nothing refused
            elif type(value) is gast.Name and value.annotation is None:
                names.add(value.id)
                if value.id in _TRIGGER_NAMES:
                    found.add(value.id)
            elif type(value) is not gast.Constant and isinstance(value, gast.AST):
                stack.append(value)
    return tally.census(fn)


class _Tally:
    """What `take_census` has seen so far; `note` reads one node of the kinds in `_NOTED`."""

    __slots__ = ("names", "found", "functions", "declared_global", "declared_nonlocal", "first_refused",
                 "branches", "scopes", "returns")

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.found: set[str] = set()
        self.functions: list[gast.FunctionDef] = []
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        self.first_refused: gast.AST | None = None
        self.branches = False
        self.scopes = False
        self.returns = 0

    def note(self, node: gast.AST, kind: type, is_own: bool) -> None:
        found = self.found
        if kind is gast.Name:
            self.names.add(node.id)  # children still walked: a parameter's annotation holds names
            if node.id in _TRIGGER_NAMES:
                found.add(node.id)
        elif kind is gast.Attribute:
            if node.attr in _TRIGGER_NAMES:
                found.add(node.attr)
        elif kind is gast.Return:
            self.returns += 1
        elif kind in _TRIGGERS:
            found.add(_TRIGGERS[kind])
        elif kind is gast.UnaryOp:
            if type(node.op) is gast.Not:
                found.add("logical")
        elif kind is gast.Compare:
            if len(node.ops) > 1:
                found.add("logical")
        elif kind is gast.For or kind is gast.While:
            if node.orelse:
                found.add("loop_else")
        elif kind is gast.Try:
            found.add("try")
            if node.finalbody:
                found.add("finally")
        elif kind is gast.With:
            found.add("with")
        elif kind in _DEFINITIONS:
            self.names.add(node.name)
            if is_own and kind is gast.FunctionDef:
                self.functions.append(node)
        elif kind is gast.Global or kind is gast.Nonlocal:
            self.names.update(node.names)
            if is_own:
                (self.declared_global if kind is gast.Global else self.declared_nonlocal).update(node.names)
        elif kind is gast.alias:
            self.names.add(node.asname or node.name.split(".")[0])

    def census(self, fn: gast.FunctionDef | gast.Lambda) -> Census:
        returns, found = self.returns, self.found
        if returns > 1 or (returns == 1 and not (type(fn.body) is list and type(fn.body[-1]) is gast.Return)):
            found.add("return")
        declared = (frozenset(self.declared_global), frozenset(self.declared_nonlocal))
        return Census(
            frozenset(self.names), frozenset(found), self.first_refused, tuple(self.functions), self.branches,
            self.scopes, declared,
        )
