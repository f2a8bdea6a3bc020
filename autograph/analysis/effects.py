"""Effects: the names one statement or expression reads and binds, in one walk of it.

Nested functions, lambdas, classes and comprehensions are scopes of their own:
from outside they read their free names (at the point they are defined) and
bind only their own name. Names a nested scope reads are its `free_names`.
`Activity` (activity.py) puts a function's effects together from these.

    expression_effects(stmt)   # Effects(reads=..., writes=..., maybe_writes=...)
    free_names(lambda_node)    # what the lambda reads from the enclosing function
"""

from __future__ import annotations

from typing import NamedTuple

import gast

from autograph.analysis.traversal import CHILD_FIELDS, walk

__all__ = ["Effects", "NameCollector", "captured_names", "expression_effects", "free_names"]

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# node types the collector treats specially; every other type just visits its children
_SPECIAL = frozenset(
    {gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, gast.AugAssign, gast.alias}
    | set(_COMPREHENSIONS)
    | {gast.MatchAs, gast.MatchStar, gast.MatchMapping, gast.Global, gast.Nonlocal}
)


class Effects(NamedTuple):
    """Names read and names bound (a `del` counts as both).

    `maybe_writes` (a subset of `writes`) are bindings that may not happen,
    such as `:=` in the second operand of `and`: they do not kill liveness.
    A named tuple: immutable like a frozen dataclass, and made without its
    per-field `object.__setattr__` (one per statement and expression part).
    """

    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    maybe_writes: frozenset[str] = frozenset()

    def __or__(self, other: Effects) -> Effects:
        return Effects(self.reads | other.reads, self.writes | other.writes, self.maybe_writes | other.maybe_writes)

    @property
    def definite_writes(self) -> frozenset[str]:
        return self.writes - self.maybe_writes


_NONE = Effects()
_EMPTY: frozenset[str] = frozenset()


class NameCollector:
    """Walks one statement or expression without entering nested scopes' bodies.

    `scopes=False` collects bindings only: nested scopes' free names (reads)
    are skipped, so the walk never descends into nested functions at all.
    Slotted: one is made per statement and expression part the CFG reads.
    """

    __slots__ = ("memo", "scopes", "reads", "writes", "maybe_writes", "captured", "globals", "nonlocals", "functions")

    def __init__(self, memo: dict[gast.AST, frozenset[str]] | None = None, scopes: bool = True) -> None:
        self.memo = memo
        self.scopes = scopes
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.maybe_writes: set[str] = set()
        self.captured: set[str] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.functions: list[gast.FunctionDef] = []  # defined in the walked code, in source order

    def visit(self, node: gast.AST) -> None:
        cls = type(node)
        if cls is gast.Name:
            ctx = type(node.ctx)
            if ctx is gast.Load:
                self.reads.add(node.id)
            elif ctx is gast.Del:
                self.reads.add(node.id)
                self.writes.add(node.id)
            else:
                self.writes.add(node.id)
            return
        if cls is gast.Constant:
            return
        if cls is gast.BoolOp or cls is gast.IfExp:
            self._conditional(node)
            return
        if cls not in _SPECIAL:
            self._children(node)
            return
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            self._definition(node)
            return
        if isinstance(node, gast.Lambda):
            self._visit_all(node.args.defaults + [d for d in node.args.kw_defaults if d])
            if self.scopes:
                free = free_names(node, self.memo)
                self.reads |= free
                self.captured |= free
            return
        if isinstance(node, _COMPREHENSIONS):
            self._comprehension(node)
            return
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            self.reads.add(node.target.id)
        elif isinstance(node, gast.alias):
            self.writes.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (gast.MatchAs, gast.MatchStar)) and node.name:
            self.writes.add(node.name)
        elif isinstance(node, gast.MatchMapping) and node.rest:
            self.writes.add(node.rest)
        elif cls is gast.Global:
            self.globals.update(node.names)
        elif cls is gast.Nonlocal:
            self.nonlocals.update(node.names)
        self._children(node)

    def _conditional(self, node: gast.AST) -> None:
        """Operands that may not run: their bindings are only possible."""
        always, maybe = (node.values[0], node.values[1:]) if isinstance(node, gast.BoolOp) else (node.test, [node.body, node.orelse])
        self.visit(always)
        before = set(self.writes)
        for operand in maybe:
            self.visit(operand)
        self.maybe_writes |= self.writes - before

    def _children(self, node: gast.AST) -> None:
        reads = self.reads
        for name in CHILD_FIELDS[type(node)]:
            value = getattr(node, name, None)
            kind = type(value)
            if kind is list:
                for item in value:
                    kind = type(item)
                    if kind is gast.Name and type(item.ctx) is gast.Load:
                        reads.add(item.id)  # the commonest children, without a call
                    elif kind is not gast.Constant and isinstance(item, gast.AST):
                        self.visit(item)
            elif kind is gast.Name and type(value.ctx) is gast.Load:
                reads.add(value.id)
            elif kind is not gast.Constant and value is not None and isinstance(value, gast.AST):
                self.visit(value)

    def _visit_all(self, nodes: list) -> None:
        for node in nodes:
            self.visit(node)

    def _definition(self, node: gast.AST) -> None:
        self.writes.add(node.name)
        if type(node) is gast.FunctionDef:
            self.functions.append(node)
        self._visit_all(node.decorator_list)
        if isinstance(node, gast.ClassDef):
            self._visit_all(node.bases + [k.value for k in node.keywords])
        else:
            self._visit_all(node.args.defaults + [d for d in node.args.kw_defaults if d])
        if self.scopes:
            free = free_names(node, self.memo)
            self.reads |= free
            self.captured |= free

    def _comprehension(self, node: gast.AST) -> None:
        if not self.scopes:  # its own targets stay inside; only := binds outside
            walrus = _walrus_targets(node)
            self.writes |= walrus
            self.maybe_writes |= walrus
            return
        inner = NameCollector(self.memo)
        for gen in node.generators:
            inner.visit(gen.iter)
            inner.visit(gen.target)
            inner._visit_all(gen.ifs)
        if isinstance(node, gast.DictComp):
            inner.visit(node.key)
            inner.visit(node.value)
        else:
            inner.visit(node.elt)
        targets: set[str] = set()
        for gen in node.generators:
            targets |= {n.id for n in walk(gen.target) if isinstance(n, gast.Name)}
        self.reads |= inner.reads - targets
        walrus = _walrus_targets(node)
        self.writes |= walrus
        self.maybe_writes |= walrus
        self.captured |= inner.captured
        if type(node) is gast.GeneratorExp:  # lazy: read at each step, whenever its consumer asks
            self.captured |= inner.reads - targets


def _walrus_targets(node: gast.AST) -> set[str]:
    return {
        n.target.id
        for n in walk(node)
        if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name)
    }


def free_names(scope: gast.AST, memo: dict[gast.AST, frozenset[str]] | None = None) -> frozenset[str]:
    """Names a nested function/lambda/class reads from enclosing scopes (its closure's variables).

    Exact for nested scopes: a name bound in an inner function does not hide
    the same name read freely by the outer one. `memo` (keyed by the scope node,
    which it holds) serves a caller that asks about the same unchanged scopes many times.
    """
    if memo is not None and scope in memo:
        return memo[scope]
    collector = NameCollector(memo)
    params: set[str] = set()
    if not isinstance(scope, gast.ClassDef):
        args = scope.args
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]}
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    for stmt in body:
        collector.visit(stmt)
    declared_global = collector.globals
    declared_nonlocal = collector.nonlocals
    bound = (collector.writes | params) - declared_nonlocal - declared_global
    free = frozenset((collector.reads | declared_nonlocal) - bound - declared_global)
    if memo is not None:
        memo[scope] = free
    return free


def expression_effects(node: gast.AST | None, memo: dict[gast.AST, frozenset[str]] | None = None) -> Effects:
    """Effects of one expression (or a statement taken whole)."""
    if node is None:
        return _NONE
    found = _plain_effects(node, memo)
    if found is not None:
        return found
    collector = NameCollector(memo)
    collector.visit(node)
    writes, maybe = collector.writes, collector.maybe_writes
    # most expressions bind nothing: they share the empty set
    return Effects(frozenset(collector.reads), frozenset(writes) if writes else _EMPTY, frozenset(maybe) if maybe else _EMPTY)


# what `_plain_effects` leaves to the collector: nodes that bind in scopes of their own or
# declare, and `:=`, whose binding in an operand that may not run is only possible
_NOT_PLAIN = (_SPECIAL - {gast.Lambda, gast.AugAssign}) | {gast.NamedExpr}


def _plain_effects(node: gast.AST, memo: dict[gast.AST, frozenset[str]] | None) -> Effects | None:
    """`expression_effects(node)` in one loop over a stack, for a node holding none of `_NOT_PLAIN`
    (None for one that does): the collector's visit without a call per node.

    Without `:=` no operand of `and`/`or` or `a if c else b` binds, so none binds only possibly.
    """
    reads: set[str] = set()
    writes: set[str] = set()
    stack = [node]
    pop, push, read = stack.pop, stack.append, reads.add
    while stack:
        current = pop()
        cls = type(current)
        if cls is gast.Name:
            ctx = type(current.ctx)
            if ctx is not gast.Load:
                writes.add(current.id)
                if ctx is gast.Del:
                    read(current.id)
            else:
                read(current.id)
            continue
        if cls in _NOT_PLAIN:
            return None
        if cls is gast.Lambda:
            args = current.args
            stack += args.defaults
            stack += [d for d in args.kw_defaults if d]
            reads |= free_names(current, memo)
            continue
        if cls is gast.AugAssign and type(current.target) is gast.Name:
            read(current.target.id)
        for name in CHILD_FIELDS[cls]:
            value = getattr(current, name, None)
            kind = type(value)
            if kind is list:
                for item in value:
                    kind = type(item)
                    if kind is gast.Name and type(item.ctx) is gast.Load:
                        read(item.id)  # the commonest children, without a turn of the loop
                    elif kind is not gast.Constant and isinstance(item, gast.AST):
                        push(item)
            elif kind is gast.Name and type(value.ctx) is gast.Load:
                read(value.id)
            elif kind is not gast.Constant and value is not None and isinstance(value, gast.AST):
                push(value)
    return Effects(frozenset(reads), frozenset(writes) if writes else _EMPTY, _EMPTY)


_DEFINITIONS = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda})
_COMPREHENSION_CLASSES = frozenset(_COMPREHENSIONS)


def captured_names(body: list[gast.AST]) -> frozenset[str]:
    """Free names of every function, lambda, class and comprehension scope defined in `body`'s
    own code: the `captured` of a collector visiting it, in one loop over a stack.

    A definition's decorators, defaults and bases run in the enclosing scope
    and are walked on; a comprehension is left to the collector.
    """
    captured: set[str] = set()
    stack = list(body)
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        cls = type(node)
        if cls in _DEFINITIONS:
            captured |= free_names(node)
            if cls is gast.ClassDef:
                stack += node.decorator_list + node.bases + [k.value for k in node.keywords]
            else:
                stack += getattr(node, "decorator_list", [])
                stack += node.args.defaults + [d for d in node.args.kw_defaults if d]
            continue
        if cls in _COMPREHENSION_CLASSES:
            inner = NameCollector()
            inner.visit(node)
            captured |= inner.captured
            continue
        for name in CHILD_FIELDS[cls]:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    kind = type(item)
                    if kind is not gast.Name and kind is not gast.Constant and isinstance(item, gast.AST):
                        push(item)
            elif type(value) is not gast.Name and type(value) is not gast.Constant and isinstance(value, gast.AST):
                push(value)
    return frozenset(captured)
