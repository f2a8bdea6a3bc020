"""bindings: every `nonlocal` in generated code must find a binding in an enclosing function.

A name can be carried by one statement while its only earlier binding stayed
local to another statement's branch function (it was not live after that
one):

    if a:                       # j is local to this if's else_body
        pass
    else:
        j = 1
    if b:                       # carries j: `nonlocal j` needs a binding in f
        j = 2
    else:
        raise E
    return j

For such names the function starts with `j: object`, a declaration that
binds nothing (every read finds a binding first). Then
each helper keeps in its `nonlocal` only the names it binds itself
(`trim_nonlocals`).

A name some path reads before any binding (the original raises
UnboundLocalError there) gets `j = ag__.Undefined('j')` when no code of `f` binds it
any more, or a helper's read would find a global of that name; and where
such a name may be unbound, its reads are checked as `unbound_reads` checks
them, so they raise instead of handing on the placeholder:

    if x > 0:                   # the loop's i is dead after it: local to loop_body
        while x > 5:
            i = 1
            x -= 1
        else:
            return -2
    return i                    # x <= 0: UnboundLocalError, not Undefined('i')
"""

from __future__ import annotations

from typing import NamedTuple

import gast

from autograph.analysis import Analyses
from autograph.analysis.activity import scope_names
from autograph.analysis.targets import block_targets
from autograph.analysis.traversal import BLOCK_FIELDS, statements
from autograph.converters.state import declaration
from autograph.converters.unbound_reads import check_reads
from autograph.source.templates import constant, replace

__all__ = ["read_before_bound", "transform", "trim_nonlocals", "unresolved_nonlocals"]


def unresolved_nonlocals(fn: gast.FunctionDef, walrus: bool = True) -> list[str]:
    """Names declared nonlocal somewhere inside `fn` that no function from there up to `fn` binds.

    `walrus=False` says `fn` holds no `:=` (a function's bindings are then read off its statements alone).
    """
    return _unresolved(fn, _Scopes(walrus))


class _Scope(NamedTuple):
    """What one function's own code binds and declares (nested functions not entered)."""

    own: set[str]  # names that resolve in it: bound there (parameters too) or declared nonlocal, not global
    nonlocals: set[str]
    bound: set[str]  # bound by its statements, names declared nonlocal or global included
    functions: list[gast.FunctionDef]  # defined directly in it, in source order


class _Scopes(dict):
    """Function -> its `_Scope`, read once for both steps of the pass."""

    def __init__(self, walrus: bool) -> None:
        super().__init__()
        self.walrus = walrus

    def __missing__(self, fn: gast.FunctionDef) -> _Scope:
        found = None if self.walrus else block_targets(fn.body)
        if found is None:  # := (or a statement targets do not read): the full walk
            names = scope_names(fn, self.walrus)
            found = self[fn] = _Scope(set(names.local | names.nonlocals), set(names.nonlocals), set(names.bound), list(names.functions))
            return found
        args = fn.args
        own = found.writes | found.nonlocals
        own.update([a.id for a in args.posonlyargs + args.args + args.kwonlyargs])
        if args.vararg is not None:
            own.add(args.vararg.id)
        if args.kwarg is not None:
            own.add(args.kwarg.id)
        if found.globals:
            own -= found.globals
        scope = self[fn] = _Scope(own, found.nonlocals, found.writes, found.functions)
        return scope


def _unresolved(fn: gast.FunctionDef, scopes: _Scopes) -> list[str]:
    """`unresolved_nonlocals`; reads the scope of every function in `fn` into `scopes`."""
    missing: list[str] = []
    top = scopes[fn]
    for child in reversed(top.functions):  # last defined first: the order the inits are written in
        _visit(child, top.own, scopes, missing)
    return missing


def _visit(node: gast.FunctionDef, outer: set[str], scopes: _Scopes, missing: list[str]) -> None:
    """Add to `missing` the names `node` or a function in it declares nonlocal and nothing outside binds.

    A module function, not a closure calling itself: that closure would be a
    reference cycle holding `scopes`, and so the whole converted tree, until
    the cyclic collector runs.
    """
    scope = scopes[node]
    if scope.nonlocals:
        unbound = scope.nonlocals - outer
        for name in sorted(unbound):
            if name not in missing:
                missing.append(name)
    if scope.functions:
        visible = outer | scope.own
        for child in reversed(scope.functions):
            _visit(child, visible, scopes, missing)


def read_before_bound(fn: gast.FunctionDef, analyses: Analyses) -> frozenset[str]:
    """Local names of `fn` that some path reads before binding them (read before control flow moves them)."""
    live = analyses.liveness.before(analyses.cfg.entry)
    # the analyses' local names: what the function's code binds when they ran, the binding
    # flag stores `drop_dead_flags` removes since included, which no read finds unbound
    return live & analyses.local_names if live else frozenset()


def transform(
    fn: gast.FunctionDef,
    generated: dict[int, gast.FunctionDef],
    walrus: bool = True,
    read_early: frozenset[str] = frozenset(),
    analyses: Analyses | None = None,
) -> gast.FunctionDef:
    """Bind, at the top of `fn`, the carried names that have no binding to resolve to, and
    the names of `read_early` (see `read_before_bound`) no code of `fn` binds any more.

    One reading of each function's statements serves both steps: finding the
    names to bind reads every function in `fn`, the helpers among them too.
    """
    if not generated:
        return fn
    scopes = _Scopes(walrus)
    missing = _unresolved(fn, scopes)
    own = scopes[fn].own
    checked: set[str] = set()
    for name in sorted(read_early):
        # a read that finds no binding in the helpers around it would see the placeholder, or a global
        if (name in missing or name not in own) and _check_free_reads(fn, frozenset((name,)), scopes, analyses):
            checked.add(name)
            if name not in missing:
                missing.append(name)
    if missing:
        inits: list[gast.stmt] = []
        for name in missing:
            if name in checked:  # its reads are checked (`ag__.is_undefined`): it holds the placeholder
                inits += replace("name = ag__.Undefined(text)", fn.body[0], name=name, text=constant(name))
            else:  # bound before every read: declared, not bound (state.declaration)
                inits.append(declaration(name, fn.body[0]))
        start = 1 if _has_docstring(fn) else 0
        fn.body[start:start] = inits
    _trim([node for node in scopes if id(node) in generated], scopes)
    return fn


def _check_free_reads(node: gast.FunctionDef, names: frozenset[str], scopes: _Scopes, analyses: Analyses) -> bool:
    """Check the reads of `names` in `node` and the functions in it that no function between binds.

    Only the user's statements are checked: generated ones (a get_state) have no CFG node.
    """
    found = False
    for stmt in _own_statements(node.body):
        found = check_reads(stmt, names, analyses) or found
    for child in scopes[node].functions:
        scope = scopes[child]
        free = names - (scope.own - scope.nonlocals)  # a nonlocal declaration reads the same binding
        if free:
            found = _check_free_reads(child, free, scopes, analyses) or found
    return found


def _own_statements(block: list[gast.stmt]) -> list[gast.stmt]:
    """The statements of a function's body and of the blocks in it, not of the functions or classes in it."""
    found, stack = [], list(block)
    while stack:
        stmt = stack.pop()
        found.append(stmt)
        if type(stmt) not in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef):
            stack.extend(s for field in BLOCK_FIELDS[type(stmt)] for s in getattr(stmt, field, None) or ())
    return found


def trim_nonlocals(fn: gast.FunctionDef, generated: dict[int, gast.FunctionDef], walrus: bool = True) -> None:
    """Each generated helper declares nonlocal only the names it binds itself.

    Control flow declares every carried name in each helper; once hoisting has
    moved the branches out of a loop body, the body often binds none of them
    (`def loop_body(itr): nonlocal i, total; i = itr; ag__.if_stmt(...)` only
    binds `i`). A name a helper reads but never binds resolves to the same
    enclosing binding without the declaration, and a call copies one closure
    cell fewer per name, which a Python-mode loop pays on every iteration.
    Runs after the bindings are added, which look at every declaration;
    `walrus=False` says `fn` holds no `:=` (see `bound_names`).
    """
    helpers = [node for node in statements(fn.body) if type(node) is gast.FunctionDef and id(node) in generated]
    _trim(helpers, _Scopes(walrus))


def _trim(helpers: list[gast.FunctionDef], scopes: _Scopes) -> None:
    for node in helpers:
        head = node.body[0]
        if type(head) is not gast.Nonlocal:
            continue
        bound = scopes[node].bound
        kept = [name for name in head.names if name in bound]
        if kept:
            head.names = kept
        else:
            del node.body[0]
            if not node.body:
                node.body.append(gast.Pass())


def _has_docstring(fn: gast.FunctionDef) -> bool:
    first = fn.body[0]
    return isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant) and isinstance(first.value.value, str)
