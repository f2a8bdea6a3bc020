"""CFG: the control flow graph of one function body, one node per simple statement.

Compound statements contribute their header pieces: an `if`/`while` test, a
`for` head (the point where the loop decides to go on) and its target
assignment. Every compound statement is followed by a `join` node, so "the
point right after this statement" is a node too.

    cfg = build_cfg(fn)
    cfg.entry_of[stmt]   # first node of a statement
    cfg.join_of[stmt]    # node right after a compound statement
    cfg.head_of[loop]    # the node a loop returns to before each iteration
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from autograph.analysis.activity import Activity, Effects, expression_effects

__all__ = ["CfgNode", "Cfg", "build_cfg"]

_NOTHING = Effects()  # effects are immutable: one serves every node that reads and binds nothing


class CfgNode:
    """One point of the function: what it reads and binds, and where control goes next.

    Compared and hashed by identity; a plain slotted class, as a function makes dozens.
    """

    __slots__ = ("kind", "ast", "effects", "next", "prev")

    def __init__(self, kind: str, ast: gast.AST | None, effects: Effects) -> None:
        self.kind = kind  # stmt, test, head, target, join, entry, exit
        self.ast = ast
        self.effects = effects
        self.next: list[CfgNode] = []
        self.prev: list[CfgNode] = []

    def __repr__(self) -> str:
        line = getattr(self.ast, "lineno", "?")
        return f"CfgNode({self.kind}@{line})"


@dataclass
class Cfg:
    entry: CfgNode
    exit: CfgNode
    nodes: list[CfgNode]
    entry_of: dict[gast.AST, CfgNode]
    join_of: dict[gast.AST, CfgNode]
    head_of: dict[gast.AST, CfgNode]

    def unlink(self) -> None:
        """Drop every edge, once the analyses are read.

        Edges make cycles (a node and its successor hold each other), and
        through the nodes' `ast` they hold the function's tree: unlinked, the
        tree is freed by reference counting when the conversion lets go of it,
        instead of waiting for the cyclic garbage collector to find it.
        """
        for node in self.nodes:
            node.next.clear()
            node.prev.clear()


class _Builder:
    def __init__(self, activity: Activity, loop_reads: dict[gast.AST, list[str]]) -> None:
        self.activity = activity
        self.loop_reads = loop_reads
        self.nodes: list[CfgNode] = []
        self.entry_of: dict[gast.AST, CfgNode] = {}
        self.join_of: dict[gast.AST, CfgNode] = {}
        self.head_of: dict[gast.AST, CfgNode] = {}
        self.exit = CfgNode("exit", None, _NOTHING)
        self.loops: list[tuple[CfgNode, list[CfgNode]]] = []  # (head, breaks)

    def node(self, kind: str, ast: gast.AST | None, effects: Effects, preds: list[CfgNode]) -> CfgNode:
        new = CfgNode(kind, ast, effects)
        self.nodes.append(new)
        for pred in preds:
            self.link(pred, new)
        return new

    @staticmethod
    def link(a: CfgNode, b: CfgNode) -> None:
        a.next.append(b)
        b.prev.append(a)

    def block(self, stmts: list[gast.stmt], preds: list[CfgNode]) -> list[CfgNode]:
        for stmt in stmts:
            preds = self.statement(stmt, preds)
        return preds

    def statement(self, stmt: gast.stmt, preds: list[CfgNode]) -> list[CfgNode]:
        method = _METHODS.get(type(stmt))
        if method is None:
            node = self.node("stmt", stmt, self.activity.effects(stmt), preds)
            self.entry_of[stmt] = node
            return [node]
        return method(self, stmt, preds)

    def _join(self, stmt: gast.stmt, preds: list[CfgNode]) -> list[CfgNode]:
        self.join_of[stmt] = self.node("join", stmt, _NOTHING, preds)
        return [self.join_of[stmt]]

    def _If(self, stmt: gast.If, preds: list[CfgNode]) -> list[CfgNode]:
        test = self.node("test", stmt, self.activity.effects(stmt.test), preds)
        self.entry_of[stmt] = test
        exits = self.block(stmt.body, [test]) + self.block(stmt.orelse, [test])
        return self._join(stmt, exits)

    def _While(self, stmt: gast.While, preds: list[CfgNode]) -> list[CfgNode]:
        # the point before the loop is distinct from its head, which back edges also reach
        self.entry_of[stmt] = self.node("join", stmt, _NOTHING, preds)
        head = self.node("test", stmt, self.activity.effects(stmt.test), [self.entry_of[stmt]])
        self.head_of[stmt] = head
        return self._loop(stmt, head, [head])

    def _For(self, stmt: gast.For, preds: list[CfgNode]) -> list[CfgNode]:
        iter_ = self.node("stmt", stmt.iter, self.activity.effects(stmt.iter), preds)
        self.entry_of[stmt] = iter_
        head = self.node("head", stmt, Effects(reads=frozenset(self.loop_reads.get(stmt, ()))), [iter_])
        self.head_of[stmt] = head
        target = self.node("target", stmt.target, self.activity.effects(stmt.target), [head])
        return self._loop(stmt, head, [target])

    def _loop(self, stmt: gast.stmt, head: CfgNode, body_preds: list[CfgNode]) -> list[CfgNode]:
        breaks: list[CfgNode] = []
        self.loops.append((head, breaks))
        for end in self.block(stmt.body, body_preds):
            self.link(end, head)
        self.loops.pop()
        return self._join(stmt, self.block(stmt.orelse, [head]) + breaks)

    def _Break(self, stmt: gast.Break, preds: list[CfgNode]) -> list[CfgNode]:
        node = self.node("stmt", stmt, _NOTHING, preds)
        self.entry_of[stmt] = node
        if self.loops:
            self.loops[-1][1].append(node)
        return []

    def _Continue(self, stmt: gast.Continue, preds: list[CfgNode]) -> list[CfgNode]:
        node = self.node("stmt", stmt, _NOTHING, preds)
        self.entry_of[stmt] = node
        if self.loops:
            self.link(node, self.loops[-1][0])
        return []

    def _Return(self, stmt: gast.Return, preds: list[CfgNode]) -> list[CfgNode]:
        node = self.node("stmt", stmt, self.activity.effects(stmt), preds)
        self.entry_of[stmt] = node
        self.link(node, self.exit)
        return []

    def _Raise(self, stmt: gast.Raise, preds: list[CfgNode]) -> list[CfgNode]:
        node = self.node("stmt", stmt, self.activity.effects(stmt), preds)
        self.entry_of[stmt] = node
        return []

    def _With(self, stmt: gast.With, preds: list[CfgNode]) -> list[CfgNode]:
        effects = _NOTHING
        for item in stmt.items:
            effects = effects | expression_effects(item.context_expr) | expression_effects(item.optional_vars)
        node = self.node("stmt", stmt, effects, preds)
        self.entry_of[stmt] = node
        first = len(self.nodes)
        exits = self.block(stmt.body, [node])
        # `__exit__` may swallow what any point of the body raises: control then goes on after the with
        return self._join(stmt, exits + [node] + self.nodes[first:])

    def _Try(self, stmt: gast.Try, preds: list[CfgNode]) -> list[CfgNode]:
        start = self.node("join", stmt, _NOTHING, preds)
        self.entry_of[stmt] = start
        first = len(self.nodes)
        body_exits = self.block(stmt.body, [start])
        raising = [start] + self.nodes[first:]
        exits = self.block(stmt.orelse, body_exits)
        for handler in stmt.handlers:
            effects = expression_effects(handler.type) | expression_effects(handler.name)
            catch = self.node("stmt", handler, effects, raising)
            exits += self.block(handler.body, [catch])
        if stmt.finalbody:
            exits = self.block(stmt.finalbody, exits + raising)
        return self._join(stmt, exits)

    def _Match(self, stmt: gast.AST, preds: list[CfgNode]) -> list[CfgNode]:
        subject = self.node("test", stmt, expression_effects(stmt.subject), preds)
        self.entry_of[stmt] = subject
        exits = [subject]
        for case in stmt.cases:
            pattern = self.node("stmt", case, expression_effects(case.pattern) | expression_effects(case.guard), [subject])
            exits += self.block(case.body, [pattern])
        return self._join(stmt, exits)


# statement class -> the builder method for it (`_If` for gast.If); the others are single nodes
_METHODS = {
    cls: getattr(_Builder, "_" + cls.__name__)
    for cls in (gast.If, gast.While, gast.For, gast.Break, gast.Continue, gast.Return, gast.Raise, gast.With, gast.Try, gast.Match)
}


def build_cfg(fn: gast.AST, activity: Activity, loop_reads: dict[gast.AST, list[str]] | None = None) -> Cfg:
    """The CFG of `fn`'s body (a FunctionDef; nested functions are single statements).

    `loop_reads`: names a for loop's head reads besides its iterable (the flags
    of its extra test, kept in a side table until the loop is rewritten).
    """
    builder = _Builder(activity, loop_reads or {})
    entry = CfgNode("entry", fn, Effects(writes=activity.params))
    builder.nodes.append(entry)
    body = fn.body if isinstance(fn.body, list) else [gast.Return(value=fn.body)]
    for end in builder.block(body, [entry]):
        builder.link(end, builder.exit)
    builder.nodes.append(builder.exit)
    return Cfg(entry, builder.exit, builder.nodes, builder.entry_of, builder.join_of, builder.head_of)
