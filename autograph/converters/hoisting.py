"""hoisting: generated helper functions move out of the loop body that would redefine them each pass.

    def loop_body():                       def if_body():
        nonlocal i, total                      nonlocal total
        def if_body():              ->         total += i
            nonlocal total                 def loop_body():
            total += i                         nonlocal i, total
        ag__.if_stmt(...)                      ag__.if_stmt(...)
        i += 1                                 i += 1

A helper moves up one generated function at a time, and only when none of
its free names is a local of the function it leaves, so it closes over the
very same cells; defining it once instead of once per iteration is what keeps
converted loops fast in Python mode.

When a local of a loop body or branch function is what holds a helper back,
that local is shared instead: declared `nonlocal` (a parameter becomes
`i = itr`), so it lives in the enclosing function, as it does in the
original code, where Python scopes are per function:

    def loop_body(i):                      def if_body():
        def if_body():                         nonlocal total
            nonlocal total          ->         total += i
            total += i                     def loop_body(itr):
        ag__.if_stmt(...)                      nonlocal i
                                               i = itr
                                               ag__.if_stmt(...)

Sharing is exact: such a local is not live where its function starts (a
loop body's non-carried names are dead at the loop head; a branch's are
dead after the if), so every read in one call sees a write of that same
call. A branch's `private` names (read first while unbound) stay local.
The `bindings` pass then binds each shared name in the user's function.
"""

from __future__ import annotations

from collections.abc import Callable

import gast

from autograph.analysis.activity import bound_names, free_names
from autograph.analysis.traversal import statements
from autograph.converters import loop_options, operand_functions
from autograph.converters.context import Context
from autograph.source.templates import replace

__all__ = ["transform"]

_BLOCKS = ("body", "orelse", "finalbody")


class _Hoister:
    """Moves generated defs up; scopes are final once visited, so their free names are memoised."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.generated = ctx.generated
        self.memo: dict[gast.AST, frozenset[str]] = {}

    def _locals(self, fn: gast.FunctionDef) -> tuple[frozenset[str], frozenset[str]]:
        """What `fn`'s own statements other than defs bind (parameters included), and what it declares.

        Moving a def out changes neither: its body's locals are these plus the names of the defs that stay.
        """
        args = fn.args
        names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]}
        declared: set[str] = set()
        others = []  # walked together: one collector for the block, not one per statement
        for stmt in fn.body:
            kind = type(stmt)
            if kind is gast.Global or kind is gast.Nonlocal:
                declared |= set(stmt.names)
            elif kind is not gast.FunctionDef:
                others.append(stmt)
        return frozenset(names | bound_names(others, self.ctx.walrus)), frozenset(declared)

    def split(self, fn: gast.FunctionDef) -> list[gast.FunctionDef]:
        """Remove from `fn`'s body the generated defs that can live one scope up; return them."""
        generated = self.generated
        helpers = [s for s in fn.body if type(s) is gast.FunctionDef and id(s) in generated]
        if not helpers:
            return []
        moved: list[gast.FunctionDef] = []
        leaving: set[int] = set()
        bound, declared = self._locals(fn)
        shared: set[str] = set()
        private = self.ctx.private.get(id(fn), frozenset())
        while helpers:
            defs = {s.name for s in fn.body if type(s) is gast.FunctionDef and id(s) not in leaving}
            local = (bound | defs) - declared - shared
            names = {s.name for s in helpers}
            movable = []
            for s in helpers:
                held = free_names(s, self.memo) & (local - {s.name})
                if held & (names | private):
                    continue
                shared |= held
                local -= held
                movable.append(s)
            if not movable:
                break
            moved += movable
            leaving.update(id(m) for m in movable)
            helpers = [s for s in helpers if id(s) not in leaving]
        if moved:
            staying = [s for s in fn.body if id(s) not in leaving]
            fn.body = self._share(fn, shared, staying) or [gast.Pass()]
        return moved

    def _share(self, fn: gast.FunctionDef, names: set[str], body: list[gast.stmt]) -> list[gast.stmt]:
        """`body` with `names` declared nonlocal; a parameter among them is bound from a fresh one."""
        if not names:
            return body
        binds: list[gast.stmt] = []
        for arg in fn.args.args:
            if arg.id in names:
                fresh = self.ctx.namespace.new("itr")
                binds += replace("name = fresh", fn, name=arg.id, fresh=fresh)
                arg.id = fresh
        head = body[0] if body and isinstance(body[0], gast.Nonlocal) else None
        declared = sorted(set(head.names if head else ()) | names)
        return replace("nonlocal names", fn, names=declared) + binds + body[1 if head else 0 :]

    def block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for stmt in block:
            if isinstance(stmt, gast.FunctionDef):
                if id(stmt) in self.generated:
                    stmt.body = self.block(stmt.body)
                    out.extend(self.split(stmt))
                out.append(stmt)
                continue
            if not isinstance(stmt, (gast.AsyncFunctionDef, gast.ClassDef)):
                _rewrite_inner_blocks(stmt, self.block)
            out.append(stmt)
        return out


class _StateMerger:
    """Keeps one get_state/set_state pair per carried tuple of names in a block.

    Once hoisted, statements carrying the same names often leave identical
    pairs side by side; the first one serves them all. Both are defined in
    the same block, the kept one first, so it is visible wherever the other was.
    """

    def __init__(self, generated: dict[int, gast.FunctionDef]) -> None:
        self.generated = generated
        self.renames: dict[str, str] = {}

    def block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        kept: dict[tuple, str] = {}
        out: list[gast.stmt] = []
        for stmt in block:
            kind = type(stmt)
            if kind is gast.FunctionDef:
                if id(stmt) not in self.generated:
                    out.append(stmt)  # the user's nested functions were converted on their own
                    continue
                key = self._key(stmt)
                if key is not None:
                    if key in kept:
                        self.renames[stmt.name] = kept[key]
                        continue
                    kept[key] = stmt.name
            elif kind is gast.AsyncFunctionDef or kind is gast.ClassDef:
                out.append(stmt)
                continue
            _rewrite_inner_blocks(stmt, self.block)
            out.append(stmt)
        return out

    def _key(self, stmt: gast.stmt) -> tuple | None:
        """What makes a generated get_state (`return (a, b)`) or set_state (`(a, b) = vars_`) itself."""
        params = tuple(a.id for a in stmt.args.args)
        last = stmt.body[-1]
        if not params and len(stmt.body) == 1 and isinstance(last, gast.Return):
            return ("get", _tuple_key(last.value)) if isinstance(last.value, gast.Tuple) else None
        if len(params) == 1 and isinstance(last, gast.Assign) and isinstance(last.targets[0], gast.Tuple):
            value = last.value
            if isinstance(value, gast.Name) and value.id == params[0]:
                return ("set", params, _tuple_key(last.targets[0]))
        return None

    def rename(self, root: gast.FunctionDef) -> None:
        """Point the operator calls of the dropped state functions at the kept ones.

        A state function is named only as an argument of its statement's
        operator call (`ag__.if_stmt(test, if_body, None, get_state_1, ...)`),
        an expression statement: only statements are walked, not expressions.
        """
        if not self.renames:
            return
        renames = self.renames
        for stmt in statements(root.body):
            if type(stmt) is not gast.Expr or type(stmt.value) is not gast.Call:
                continue
            for arg in stmt.value.args:
                if type(arg) is gast.Name:
                    while arg.id in renames:
                        arg.id = renames[arg.id]


def _names_tuple(node: gast.expr | None) -> bool:
    return isinstance(node, gast.Tuple) and all(isinstance(e, gast.Name) for e in node.elts)


def _tuple_key(node: gast.Tuple) -> tuple[str, ...] | str:
    """Plain names by their ids; a tuple holding attributes or subscripts (`self.total`) by its dump."""
    return _ids(node) if _names_tuple(node) else gast.dump(node)


def _ids(names: gast.Tuple) -> tuple[str, ...]:
    """A tuple of plain names, told apart by its names alone (cheaper than comparing `gast.dump`s)."""
    return tuple(e.id for e in names.elts)


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Hoist the helpers control_flow generated as far up as their free names allow, merge
    the state functions that became identical neighbours, and bind the constant options of
    the loops inside helpers once (`loop_options`)."""
    operand_functions.transform(node, ctx)
    node.body = _Hoister(ctx).block(node.body)
    merger = _StateMerger(ctx.generated)
    node.body = merger.block(node.body)
    merger.rename(node)
    return loop_options.transform(node, ctx)


class _InnerBlocks(dict):
    """Node class -> its fields holding statement blocks this pass rewrites (handlers last), found on first use."""

    def __missing__(self, cls: type) -> tuple[str, ...]:
        fields = self[cls] = tuple(f for f in (*_BLOCKS, "handlers") if f in cls._fields)
        return fields


_INNER_BLOCKS: dict[type, tuple[str, ...]] = _InnerBlocks()


def _rewrite_inner_blocks(stmt: gast.stmt, rewrite: Callable[[list], list]) -> None:
    """Replace each statement block nested in `stmt` (bodies, else, finally, handlers) by its rewrite.

    Most statements hold none: their class's entry in the table is empty.
    """
    for field in _INNER_BLOCKS[type(stmt)]:
        inner = getattr(stmt, field, None)
        if not inner:
            continue
        if field == "handlers":
            for handler in inner:
                handler.body = rewrite(handler.body)
        else:
            setattr(stmt, field, rewrite(inner))
