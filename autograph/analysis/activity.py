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

import gast

from autograph.analysis.effects import (
    Effects,
    NameCollector,
    captured_names,
    expression_effects,
    free_names,
)
from autograph.analysis.targets import block_targets
from autograph.analysis.traversal import BLOCK_FIELDS, CHILD_FIELDS

__all__ = ["Effects", "Activity", "ScopeNames", "bound_names", "declarations", "expression_effects", "free_names", "scope_names"]

_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef})
# nodes holding statement blocks: their effects are their parts' (`Activity.effects`)
_COMPOUND = frozenset(
    {gast.If, gast.While, gast.For, gast.AsyncFor, gast.With, gast.AsyncWith, gast.Try, gast.ExceptHandler}
    | {gast.Match, gast.match_case}
)



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
    collector = NameCollector(scopes=False)
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
        collector = NameCollector(scopes=False)
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
    def of_function(
        cls, fn: gast.AST, walrus: bool = True, declared: tuple[frozenset[str], frozenset[str]] | None = None
    ) -> Activity:
        """`declared`: the (global, nonlocal) names of `fn`'s own code, when known (the census's):
        then its statements are not walked for them."""
        args = fn.args
        params = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
        if declared is None:
            declared = declarations(fn.body if isinstance(fn.body, list) else [fn.body])
        globals_, nonlocals = declared
        return cls(fn, frozenset(a.id for a in params), globals_, nonlocals, walrus=walrus)

    @property
    def captured(self) -> frozenset[str]:
        """Free names of every nested function, lambda, class and comprehension scope in `fn`."""
        if self._captured is None:
            self._captured = captured_names(self.fn.body if isinstance(self.fn.body, list) else [self.fn.body])
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
