"""catching: which try or with block of the function may catch what a statement or expression raises.

Staged, a tensor-dependent construct runs when the graph runs, long after the
handlers, `finally:` and `__exit__` around it ran once while tracing; the
operator refuses to stage it (runtime/operators/within.py) when its call names
that block, `within=('try', 12)`. Control flow passes it for if/while/for
(`catching_blocks`); the assert, conditional-expression and logical passes for
the asserts, `a if c else b`, `and`/`or` and chained comparisons
`expressions_within` finds:

    try:                                   try:
        y = a if c else b          ->          y = ag__.if_exp(c, lambda: a, lambda: b, 'c', within=('try', 1))
        assert y > 0                           ag__.assert_stmt(y > 0, within=('try', 1))
    except ValueError: ...                 except ValueError: ...

The rule is lexical: the bodies of nested functions and lambdas run when they
are called, maybe far from the block, and are left alone, as calls are.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import CHILD_FIELDS
from autograph.converters.context import Context
from autograph.source.templates import constant

__all__ = ["catching_blocks", "expressions_within", "within_keyword"]

_SKIPPED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
# what an expression walk does not enter: code run when called, blocks walked on their own
_NOT_ENTERED = (gast.Lambda, gast.stmt, gast.excepthandler, gast.match_case)


def catching_blocks(stmt: gast.stmt) -> list[tuple[list[gast.stmt], bool]]:
    """The statement blocks of `stmt`, each with whether `stmt` may catch an exception raised in it.

    A try catches what its body raises when it has handlers, and runs its
    `finally:` after anything its body, handlers or else raise; a with
    statement's `__exit__` may swallow what its body raises.
    """
    if isinstance(stmt, gast.Try):
        finally_ = bool(stmt.finalbody)
        blocks = [(stmt.body, bool(stmt.handlers) or finally_), (stmt.orelse, finally_)]
        blocks += [(handler.body, finally_) for handler in stmt.handlers]
        return blocks + [(stmt.finalbody, False)]
    if isinstance(stmt, (gast.With, gast.AsyncWith)):
        return [(stmt.body, True)]
    blocks = [(getattr(stmt, field), False) for field in ("body", "orelse") if isinstance(getattr(stmt, field, None), list)]
    return blocks + [(case.body, False) for case in getattr(stmt, "cases", None) or ()]


def within_keyword(within: tuple[str, int]) -> gast.keyword:
    """`within=('try', 12)`: the keyword an operator call inside a catching block passes."""
    value = gast.Tuple(elts=[constant(v) for v in within], ctx=gast.Load())
    return gast.keyword(arg="within", value=value)


def expressions_within(fn: gast.FunctionDef, ctx: Context) -> dict[int, tuple[gast.AST, tuple[str, int]]]:
    """id -> (node, its innermost catching block) for each assert, if-expression, and/or, chain.

    A boolean operation or chained comparison that is (a part, through
    `and`/`or`/`not`, of) the test of an if, while or assert is left out:
    staged, its value is a Tensor, and the statement itself is refused,
    naming the statement the user wrote. The dict holds each node, so its
    id stays its own while the function converts.
    """
    marks: dict[int, tuple[gast.AST, tuple[str, int]]] = {}

    def block(stmts: list[gast.stmt], within: tuple[str, int] | None) -> None:
        for stmt in stmts:
            if isinstance(stmt, _SKIPPED):
                continue
            if within is not None:
                _mark(stmt, within, marks)
            for nested, catches in catching_blocks(stmt):
                keyword = "try" if isinstance(stmt, gast.Try) else "with"
                block(nested, (keyword, ctx.user_line(stmt)) if catches else within)

    block(fn.body, None)
    return marks


def _mark(stmt: gast.stmt, within: tuple[str, int], marks: dict) -> None:
    """Mark the constructs in `stmt`'s own expressions (not in its nested blocks)."""
    if isinstance(stmt, gast.Assert):
        marks[id(stmt)] = (stmt, within)
    tested = _test_chain(stmt.test) if isinstance(stmt, (gast.If, gast.While, gast.Assert)) else ()
    stack = [stmt]
    while stack:
        node = stack.pop()
        kind = type(node)
        if (kind is gast.IfExp or kind is gast.BoolOp or (kind is gast.Compare and len(node.ops) > 1)) and (
            id(node) not in tested
        ):
            marks[id(node)] = (node, within)
        for field in CHILD_FIELDS[kind]:
            value = getattr(node, field, None)
            for child in value if type(value) is list else (value,):
                if isinstance(child, gast.AST) and not isinstance(child, _NOT_ENTERED):
                    stack.append(child)


def _test_chain(test: gast.expr) -> set[int]:
    """ids of the `and`/`or`/chained comparisons whose value a test is, through `and`/`or`/`not`."""
    chain: set[int] = set()
    stack = [test]
    while stack:
        node = stack.pop()
        if type(node) is gast.BoolOp:
            chain.add(id(node))
            stack.extend(node.values)
        elif type(node) is gast.UnaryOp and type(node.op) is gast.Not:
            stack.append(node.operand)
        elif type(node) is gast.Compare and len(node.ops) > 1:
            chain.add(id(node))
    return chain
