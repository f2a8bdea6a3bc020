"""if_chains: an if/elif chain of more than `NESTED_CHAIN` arms is one flat `ag__.if_chain` call.

Each `elif` is an `if` in the else branch of the one before, so converted
one by one, arm k's helpers sit k else branches deep and running arm k
takes k nested calls; Python compiles chains of ~3,000 arms, but runs out of
recursion near 500 of those calls. A long chain is written flat instead:
every arm's helpers side by side, then one call taking each arm's test
(lazy), body and carried names, then the last `else`:

    def if_body(): ...                              # arm 0
    def if_body_1(): ...                            # arm 1
    ...
    def else_body_11(): ...                         # the last else
    ag__.if_chain(lambda: x == 0, if_body, ('y',), lambda: x == 1, if_body_1, ('y',), ..., else_body_11)

It is the nested form with the else branches that only called the next
arm's operator taken out: each arm carries what its `if_stmt` carried, and
an option of one (`nouts`, `unread`, state functions) goes to
`options={arm: {...}}`. An else branch goes only when that is exact: the
arm's test can move out of its scope (no `yield` or `await`), the
branch keeps no name of its own (`Context.private`), and the rest of the
chain is nothing but its helpers and its call, inside the same try/with.
Shorter chains read as before, nested.

A test that binds names with `:=` cannot be a lambda (the lambda would
bind them); it is a def among its arm's helpers that declares them, as the
else branch it leaves did (`nonlocal`, or `global` for the function's
globals), so they are bound where the arm's body and the code after read
them, and carried as the nested arms carried them:

    def if_test_1():
        nonlocal m
        return (m := match(b, s)) is not None
    ag__.if_chain(lambda: x == 0, if_body, ('y',), if_test_1, if_body_1, ('y', 'm'), ...)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gast

from autograph.converters.context import Context
from autograph.converters.expression_scope import binds_or_suspends
from autograph.source.origins import inherit_location
from autograph.source.templates import constant, load_name, replace, replace_expr

__all__ = ["NESTED_CHAIN", "Arm", "chained", "test_binds"]

NESTED_CHAIN = 10  # a longer if/elif chain is one flat call


@dataclass
class Arm:
    """One converted `if` of a chain: what its `if_stmt` call was given."""

    test: gast.expr
    body: gast.expr  # the if_body's name, or None
    names: gast.Tuple
    options: list[gast.keyword]  # nouts, unread, get_state, set_state
    defs: list[gast.stmt]  # its state functions and if_body, which stay when its else branch goes
    test_binds: tuple[tuple[str, ...], tuple[str, ...]] | None = ((), ())  # see `test_binds`
    test_name: str | None = None  # the def its test becomes when it binds names


@dataclass
class _Chain:
    arms: list[Arm]  # outermost first; emptied once the chain is flat (then `call` holds them)
    last: gast.expr  # the last else branch's name, or None
    defs: list[gast.stmt]  # the last else branch's def; every arm's defs too once flat
    within: tuple[str, int] | None
    code: list[gast.stmt]  # what the chain's first `if` became
    call: gast.Call | None = None  # the flat call, once the chain is longer than NESTED_CHAIN
    options: list[gast.Constant] | None = None  # the flat call's option keys (arm indices)
    length: int = 0
    gone: list[gast.stmt] | None = None  # the else branches that only call the rest, while nested


def chained(node: gast.If, arm: Arm, orelse: tuple[gast.expr, list[gast.stmt]], within: tuple[str, int] | None,
            private: bool, code: list[gast.stmt], around: Callable[[gast.stmt], list[gast.stmt]], simple: bool,
            ctx: Context) -> list[gast.stmt]:
    """The code for `node`: `code`, as it converts alone, or the flat chain it heads.

    `orelse`: its else branch's name (or None) and def. `around(call)`: the
    statements the operator call stands among (inits before it, unbinding
    after); `simple` when there are none, as a chain's rest must be.
    `private`: whether its branches keep names of their own.
    """
    chains = ctx.if_chains
    inner = _inner(node, chains)
    lazy = arm.test_name is not None or not binds_or_suspends([arm.test])
    if inner is not None and lazy and not private and inner.within == within:
        chain = inner
        chain.length += 1
        if chain.call is not None:
            _drop(orelse[1], ctx)
            _prepend(chain, arm, node, ctx)
        else:
            chain.arms.insert(0, arm)
            chain.gone += orelse[1]
            if chain.length > NESTED_CHAIN:
                _drop(chain.gone, ctx)
                _flatten(chain, node, ctx)
    else:
        chain = _Chain([arm], orelse[0], list(orelse[1]), within, code, length=1, gone=[])
    if chain.call is not None:
        for field in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            setattr(chain.call, field, getattr(node, field, None))
        chain.call.keywords = [k for k in chain.call.keywords if k.arg != "within"]  # `around` adds it
        code = chain.defs + around(gast.copy_location(gast.Expr(value=chain.call), node))
        ctx.lazy_operands = True
    chain.code = code
    if simple and lazy:
        chains[id(code[-1])] = chain
    return code


_TEST = """
def if_test():
    nonlocal names
    global globals_
    return test
"""


def test_binds(test: gast.expr, globals_: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The names `test` binds with `:=` in the function's scope (not global, global), or None when
    it yields or awaits (then it cannot move out of that scope at all).

    A `:=` inside a comprehension binds in the function; one inside a lambda binds in the lambda.
    """
    bound: list[str] = []
    stack: list[gast.AST] = [test]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in (gast.Yield, gast.YieldFrom, gast.Await):
            return None
        if kind is gast.NamedExpr and node.target.id not in bound:
            bound.append(node.target.id)
        stack.extend(gast.iter_child_nodes(node) if kind is not gast.Lambda else [node.args])  # defaults
    bound.sort()
    return tuple(n for n in bound if n not in globals_), tuple(n for n in bound if n in globals_)


def _inner(node: gast.If, chains: dict) -> _Chain | None:
    """The chain `node`'s else branch is, when it is nothing else (statements are converted
    innermost first, and each becomes at least one: a rest of another length holds more)."""
    orelse = node.orelse
    if not orelse or type(orelse[-1]) is not gast.Expr:
        return None
    inner = chains.pop(id(orelse[-1]), None)
    if inner is None or len(inner.code) != len(orelse) or inner.code[-1] is not orelse[-1]:
        return None
    return inner


def _drop(defs: list[gast.stmt], ctx: Context) -> None:
    """Forget the else branches a flat chain does without."""
    for def_ in defs:
        ctx.generated.pop(id(def_), None)
        ctx.private.pop(id(def_), None)


def _flatten(chain: _Chain, node: gast.If, ctx: Context) -> None:
    """Make the flat call of `chain`, so far written nested: its arms, then the last else."""
    chain.call = replace_expr("ag__.if_chain()")
    chain.call.args = [chain.last]
    inherit_location(chain.last, node)
    chain.options = []
    last_defs, chain.defs = chain.defs, []
    for arm in reversed(chain.arms):
        _prepend(chain, arm, node, ctx)
    chain.defs += last_defs
    chain.arms = []
    chain.gone = None


def _prepend(chain: _Chain, arm: Arm, node: gast.If, ctx: Context) -> None:
    """Put `arm` first in the flat call (the chain's arms are met innermost first)."""
    call = chain.call
    defs = arm.defs
    if arm.test_name is None:
        test = replace_expr("lambda: test", test=arm.test)
    else:
        names, globals_ = arm.test_binds
        test_def = replace(_TEST, arm.test, if_test=arm.test_name, names=list(names), globals_=list(globals_),
                           test=arm.test)[0]
        ctx.generated[id(test_def)] = test_def
        defs = [test_def, *defs]
        test = load_name(arm.test_name)
    new = [test, arm.body, arm.names]
    inherit_location(new, arm.test)
    call.args[0:0] = new
    chain.defs[0:0] = defs
    for key in chain.options:  # an option's arm moves one place on
        key.value += 1
    if arm.options:
        key = constant(0)
        value = gast.Dict(keys=[constant(k.arg) for k in arm.options], values=[k.value for k in arm.options])
        inherit_location([key, value], node)
        options = next((k.value for k in call.keywords if k.arg == "options"), None)
        if options is None:
            options = gast.Dict(keys=[], values=[])
            inherit_location(options, node)
            call.keywords.append(gast.keyword(arg="options", value=options))
        options.keys.insert(0, key)
        options.values.insert(0, value)
        chain.options.append(key)
