"""Activity: which names each statement or expression reads and modifies.

Nested functions, lambdas, classes and comprehensions are scopes of their own:
from outside they read their free names (at the point they are defined) and
bind only their own name. Names a nested user function (or a generator
expression) captures are recorded in `captured`, since a closure may read
them at any later time.

    activity = Activity.of_function(fn)
    activity.effects(stmt)      # Effects(reads=..., writes=...) of the whole statement
    activity.modified(loop)     # names the loop body binds
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import gast

from autograph.analysis.targets import block_targets
from autograph.analysis.traversal import BLOCK_FIELDS, CHILD_FIELDS, walk

__all__ = ["Effects", "Activity", "ScopeNames", "bound_names", "declarations", "expression_effects", "free_names", "scope_names"]

_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef})
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
# node types the collector treats specially; every other type just visits its children
_SPECIAL = frozenset(
    {gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, gast.AugAssign, gast.alias}
    | set(_COMPREHENSIONS)
    | {gast.MatchAs, gast.MatchStar, gast.MatchMapping, gast.Global, gast.Nonlocal}
)
# nodes holding statement blocks: their effects are their parts' (`Activity.effects`)
_COMPOUND = frozenset(
    {gast.If, gast.While, gast.For, gast.AsyncFor, gast.With, gast.AsyncWith, gast.Try, gast.ExceptHandler}
    | {gast.Match, gast.match_case}
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


class _Collector:
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
        inner = _Collector(self.memo)
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
    collector = _Collector(memo)
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
    collector = _Collector(memo)
    collector.visit(node)
    writes, maybe = collector.writes, collector.maybe_writes
    # most expressions bind nothing: they share the empty set
    return Effects(frozenset(collector.reads), frozenset(writes) if writes else _EMPTY, frozenset(maybe) if maybe else _EMPTY)


def bound_names(stmts: list[gast.AST], walrus: bool = True) -> frozenset[str]:
    """Names the statements bind in their own scope: `expression_effects(s).writes` for each,
    without walking into nested functions, lambdas or comprehensions for their reads.

    `walrus=False` says the statements hold no `:=`: then their expressions bind
    nothing and only statements and targets are read (`targets`).
    """
    if not walrus:
        found = block_targets(stmts)
        if found is not None:
            return frozenset(found.writes)
    collector = _Collector(scopes=False)
    for stmt in stmts:
        collector.visit(stmt)
    return frozenset(collector.writes)


@dataclass(frozen=True)
class ScopeNames:
    """What one function's own scope binds and declares, and the functions defined directly in it."""

    local: frozenset[str]  # bound there (parameters included), less names declared global or nonlocal
    nonlocals: frozenset[str]
    functions: tuple[gast.FunctionDef, ...]  # source order; not those inside classes or other functions
    bound: frozenset[str] = frozenset()  # bound by its statements, declared names included: `bound_names(fn.body)`


def scope_names(fn: gast.FunctionDef, walrus: bool = True) -> ScopeNames:
    """`Activity.of_function(fn)`'s `local_names()` and `nonlocals`, and the nested functions, in one walk.

    `walrus=False` says `fn` holds no `:=` (see `bound_names`).
    """
    collector = block_targets(fn.body) if not walrus else None
    if collector is None:
        collector = _Collector(scopes=False)
        for stmt in fn.body:
            collector.visit(stmt)
    args = fn.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]}
    local = (collector.writes | params) - collector.globals - collector.nonlocals
    return ScopeNames(frozenset(local), frozenset(collector.nonlocals), tuple(collector.functions), frozenset(collector.writes))


@dataclass
class Activity:
    """Per-function name activity; effects of compound statements include their bodies.

    `captured` needs a walk of the whole body, so it is computed on first use
    (passes that only ask for `local_names` or `nonlocals` never pay for it).
    `walrus=False` says `fn` holds no `:=` (see `bound_names`).
    """

    fn: gast.AST
    params: frozenset[str]
    globals: frozenset[str]
    nonlocals: frozenset[str]
    _captured: frozenset[str] | None = None
    _memo: dict[gast.AST, Effects] = field(default_factory=dict)
    walrus: bool = True

    @classmethod
    def of_function(cls, fn: gast.AST, walrus: bool = True) -> Activity:
        args = fn.args
        params = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
        body = fn.body if isinstance(fn.body, list) else [fn.body]
        globals_, nonlocals = declarations(body)
        return cls(fn, frozenset(a.id for a in params), globals_, nonlocals, walrus=walrus)

    @property
    def captured(self) -> frozenset[str]:
        """Free names of every nested function, lambda, class and comprehension scope in `fn`."""
        if self._captured is None:
            collector = _Collector()
            for stmt in self.fn.body if isinstance(self.fn.body, list) else [self.fn.body]:
                collector.visit(stmt)
            self._captured = frozenset(collector.captured)
        return self._captured

    def effects(self, node: gast.AST) -> Effects:
        """Reads and writes of a statement (or expression) including everything nested in it.

        A compound statement's effects are put together from its parts' in
        walk order, all memoised: asking for a loop and then for each
        statement of its body, or for an if's test, walks every node once,
        not once per enclosing statement. Memoised reads are those of the tree
        as it was first asked about (the CFG, before any rewrite).
        """
        found = self._memo.get(node)
        if found is None:
            found = self._memo[node] = self._compound(node) if type(node) in _COMPOUND else expression_effects(node)
        return found

    def _compound(self, node: gast.AST) -> Effects:
        reads: set[str] = set()
        writes: set[str] = set()
        maybe: set[str] = set()
        for name in CHILD_FIELDS[type(node)]:
            value = getattr(node, name, None)
            for part in value if type(value) is list else (value,):
                if isinstance(part, gast.AST):
                    found = self.effects(part)  # a test, target or iterable too: the CFG asks for the same
                    reads |= found.reads
                    maybe |= found.maybe_writes - writes  # as one walk: maybe only if not bound earlier
                    writes |= found.writes
        return Effects(frozenset(reads), frozenset(writes), frozenset(maybe))

    def modified(self, stmts: list[gast.stmt]) -> frozenset[str]:
        writes: set[str] = set()
        for stmt in stmts:
            writes |= self.effects(stmt).writes
        return frozenset(writes)

    def local_names(self) -> frozenset[str]:
        """Names bound in the function's own scope (parameters included)."""
        body = self.fn.body if isinstance(self.fn.body, list) else [self.fn.body]
        writes: set[str] = set()
        unknown = []  # statements without memoised effects, walked by one collector
        for stmt in body:
            found = self._memo.get(stmt)
            if found is not None:
                writes |= found.writes
            else:
                unknown.append(stmt)
        return (frozenset(writes) | bound_names(unknown, self.walrus) | self.params) - self.globals - self.nonlocals


def declarations(body: list[gast.stmt]) -> tuple[frozenset[str], frozenset[str]]:
    """(global, nonlocal) names declared by the statements of `body`, outside nested scopes.

    Declarations are statements, so only statement blocks are scanned, never expressions.
    """
    globals_: set[str] = set()
    nonlocals: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        cls = type(node)
        if cls is gast.Global:
            globals_.update(node.names)
        elif cls is gast.Nonlocal:
            nonlocals.update(node.names)
        elif cls not in _SCOPES:
            for name in BLOCK_FIELDS[cls]:
                block = getattr(node, name, None)
                if type(block) is list:
                    stack.extend(block)
    return frozenset(globals_), frozenset(nonlocals)
