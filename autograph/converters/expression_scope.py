"""Expression rewrites: the walk that converters rewriting expressions in place share.

They visit the function's own code (nested defs and classes were converted on
their own; lambdas are entered) and leave alone any operand that binds a name
(`:=`) or yields, since wrapping it in a lambda would change its scope.

A converter gives a rewrite per node class; `rewrite_expressions` finds the
nodes of those classes in one walk and rewrites them innermost first, each
result put where the node stood:

    rewrite_expressions(fn, {gast.Call: calls.call, gast.BoolOp: logical.bool_op})

Innermost first is what a transformer that visits a node's children before
the node itself does, so a rewrite sees its operands rewritten already. The
walk stops at no node it is not asked about, but it makes no call per node:
rewrites of several converters whose node classes differ, run one after the
other, give the same tree when given together in one walk (the pipeline runs
`and`/`or` and call rewrites so), as long as none reads operands the other
rewrites.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import gast

from autograph.analysis.traversal import CHILD_FIELDS, walk

__all__ = ["Rewrite", "binds_or_suspends", "rewrite_expressions"]

_UNSAFE = (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)
# scopes converted on their own: neither they nor their decorators, defaults or bases are entered
_OWN_SCOPES = frozenset({gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef})
# the commonest nodes, which hold nothing a rewrite acts on (a lambda's parameters are plain names)
_LEAVES = frozenset({gast.Name, gast.Constant})

Rewrite = Callable[[gast.AST], gast.AST]


def binds_or_suspends(nodes: list[gast.AST]) -> bool:
    """Whether moving `nodes` into a lambda would change what they do."""
    return any(isinstance(n, _UNSAFE) for node in nodes for n in walk(node))


def rewrite_expressions(fn: gast.AST, rewrites: Mapping[type, Rewrite]) -> None:
    """Replace each node of `fn`'s own code whose class has a rewrite by what the rewrite returns.

    `fn` is a FunctionDef (its body is walked) or a Lambda (its body
    expression). Nodes are rewritten in the reverse of the order a depth-first
    walk meets them, so every node after all the nodes inside it.
    """
    if not rewrites:
        return
    found: list[tuple[gast.AST, gast.AST, str, int]] = []  # (node, parent, field, index or -1)
    stack: list[tuple[gast.AST, gast.AST, str, int]] = []
    if isinstance(fn, gast.Lambda):
        stack.append((fn.body, fn, "body", -1))
    else:
        stack.extend((stmt, fn, "body", i) for i, stmt in enumerate(fn.body) if type(stmt) not in _OWN_SCOPES)
    pop, push, note = stack.pop, stack.append, found.append
    while stack:
        entry = pop()
        node = entry[0]
        kind = type(node)
        if kind in rewrites:
            note(entry)
        for field in CHILD_FIELDS[kind]:
            value = getattr(node, field, None)
            if type(value) is list:
                for index, item in enumerate(value):
                    child = type(item)
                    if child not in _LEAVES and child not in _OWN_SCOPES and isinstance(item, gast.AST):
                        push((item, node, field, index))
            else:
                child = type(value)
                if child not in _LEAVES and child not in _OWN_SCOPES and isinstance(value, gast.AST):
                    push((value, node, field, -1))
    for node, parent, field, index in reversed(found):
        new = rewrites[type(node)](node)
        if new is not node:
            if index < 0:
                setattr(parent, field, new)
            else:
                getattr(parent, field)[index] = new
