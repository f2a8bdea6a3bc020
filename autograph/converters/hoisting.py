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

Helpers move out of functions that run once per iteration of a loop:
a loop's body and test, and every helper defined inside them. A branch of
an `if` outside any loop runs once per call at most, so its helpers stay in
it, next to the statement they serve, and the names it binds stay its own
locals (no sharing, no binding in the user's function) -- unless it is
nested _MAX_NESTING helpers deep: an if/elif chain the converter cannot
write as one flat call (if_chains: an arm whose test yields or awaits, a branch
that keeps names of its own) puts each arm's helpers inside the previous
arm's else branch, and Python compiles no more than 100 levels of
indentation, so from that depth on helpers move up.
"""

from __future__ import annotations

import gast

from autograph.analysis.activity import bound_names, declarations, expression_effects
from autograph.analysis.traversal import (
    BLOCK_FIELDS,
    INNER_BLOCKS,
    rewrite_inner_blocks,
    statements,
)
from autograph.converters import loop_operands, loop_options
from autograph.converters.context import Context
from autograph.converters.operator_calls import called_operator
from autograph.source.templates import replace

__all__ = ["transform"]


class _Hoister:
    """Moves generated defs up; scopes are final once visited, so their free names are memoised
    (those of state functions of plain names are known from when they were made)."""

    def __init__(self, ctx: Context, in_loops: frozenset[int] = frozenset()) -> None:
        self.ctx = ctx
        self.in_loops = in_loops  # ids of the helpers their helpers leave (see `_in_loops`, `_too_deep`)
        self.generated = ctx.generated
        self.memo: dict[gast.AST, frozenset[str]] = ctx.free_names
        self.analysed = ctx.analysed
        self.merger = _StateMerger(ctx.state_keys)
        self.renamed: dict[str, str] = {}  # helper -> its parameter's name before `_share` renamed it

    def _free(self, fn: gast.FunctionDef) -> frozenset[str]:
        """`free_names(fn)` of a generated helper, whose body is final, put together statement by statement.

        A user's simple statement the analyses read and no pass rewrote since
        gives its effects as they were read (`Context.analysed`); a helper
        nested in `fn` its memoised free names; only the others are walked.
        """
        memo = self.memo
        found = memo.get(fn)
        if found is not None:
            return found
        analysed, generated = self.analysed, self.generated
        reads: set[str] = set()
        writes: set[str] = set()
        globals_: set[str] = set()
        nonlocals: set[str] = set()
        for stmt in fn.body:
            kind = type(stmt)
            if kind is gast.Nonlocal:
                nonlocals.update(stmt.names)
                continue
            if kind is gast.Global:
                globals_.update(stmt.names)
                continue
            if kind is gast.FunctionDef and id(stmt) in generated:  # no decorators, no defaults
                writes.add(stmt.name)
                reads |= self._free(stmt)
                continue
            effects = analysed.get(stmt)
            if effects is None:
                effects = expression_effects(stmt, memo)
                if BLOCK_FIELDS[kind]:  # declarations nested in its blocks count for fn
                    declared_global, declared_nonlocal = declarations([stmt])
                    globals_ |= declared_global
                    nonlocals |= declared_nonlocal
            reads |= effects.reads
            writes |= effects.writes
        args = fn.args
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]}
        bound = (writes | params) - nonlocals - globals_
        free = memo[fn] = frozenset((reads | nonlocals) - bound - globals_)
        return free

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
        """Remove from `fn`'s body the generated defs that can live one scope up; return them.

        What stays is final, and its state functions are merged (see `block`).
        """
        generated = self.generated
        helpers = []
        others: set[str] = set()  # the user's own defs: they stay
        for s in fn.body:
            if type(s) is gast.FunctionDef:
                if id(s) in generated:
                    helpers.append(s)
                else:
                    others.add(s.name)
        if not helpers:
            return []
        count = len(helpers)
        moved: list[gast.FunctionDef] = []
        bound, declared = self._locals(fn)
        # fn's locals other than the helpers still in it
        user = (bound | others) - declared
        private = self.ctx.private.get(id(fn), frozenset())
        memo = self.memo
        while helpers:
            names = {s.name for s in helpers}
            local = user | (names - declared)
            staying = []
            for s in helpers:
                free = memo.get(s)
                if free is None:
                    free = self._free(s)
                held = free & local
                if held and s.name in held:
                    held = held - {s.name}
                if held and (held & names or held & private):
                    staying.append(s)
                    continue
                if held:
                    user -= held
                    local -= held
                moved.append(s)
            if len(staying) == len(helpers):
                break
            helpers = staying
        body = fn.body
        if moved:
            leaving = {id(m) for m in moved}
            body = [s for s in body if id(s) not in leaving]
            body = self._share(fn, (bound | others) - declared - user, body) or [gast.Pass()]
        # fn's body is final now: its own state functions are merged (a body without helpers has none)
        fn.body = self.merger.merge(body) if len(moved) < count else body
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
                self.renamed[fn.name] = arg.id
                arg.id = fresh
        head = body[0] if body and isinstance(body[0], gast.Nonlocal) else None
        declared = sorted(set(head.names if head else ()) | names)
        return replace("nonlocal names", fn, names=declared) + binds + body[1 if head else 0 :]

    def block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        """`block` with the helpers of its statements moved as far up as they go.

        A block is final once its statements are done (a helper's body once
        its own helpers left it, in `split`; the function's and a try's or
        with's in `final_block`): its state functions are merged then, in the
        same walk, rather than by a second one over the finished function.
        """
        out: list[gast.stmt] = []
        generated = self.generated
        state_functions = self.merger.keys  # they hold no helper, nor any block
        for stmt in block:
            kind = type(stmt)
            if kind is gast.FunctionDef:
                if id(stmt) in generated and id(stmt) not in state_functions:
                    stmt.body = self.block(stmt.body)
                    if id(stmt) in self.in_loops:
                        out.extend(self.split(stmt))
                out.append(stmt)
                continue
            if INNER_BLOCKS[kind]:  # none for simple statements, defs and classes: no call for those
                rewrite_inner_blocks(stmt, self.final_block)
            out.append(stmt)
        return out

    def final_block(self, block: list[gast.stmt]) -> list[gast.stmt]:
        """`block`, a block no helper leaves (the function's, or one of a try or with), rewritten and merged."""
        return self.merger.merge(self.block(block))


class _StateMerger:
    """Keeps one get_state/set_state pair per carried tuple of names in a block.

    Once hoisted, statements carrying the same names often leave identical
    pairs side by side; the first one serves them all. Both are defined in
    the same block, the kept one first, so it is visible wherever the other
    was. State functions are told apart by the keys `state.state_functions`
    gave them as it made them, with the names of them their operator calls
    pass (a state function is named nowhere else): those of a dropped one
    are pointed at the kept one.
    """

    def __init__(self, keys: dict[int, tuple[tuple, list[gast.Name]]]) -> None:
        self.keys = keys

    def merge(self, block: list[gast.stmt]) -> list[gast.stmt]:
        """`block`, a finished one, without the state functions an earlier one of it serves."""
        keys = self.keys
        kept: dict[tuple, tuple[str, list[gast.Name]]] = {}
        out: list[gast.stmt] = []
        for stmt in block:
            if type(stmt) is gast.FunctionDef:
                found = keys.get(id(stmt))
                if found is not None:
                    key, refs = found
                    if key in kept:
                        name, kept_refs = kept[key]
                        for ref in refs:
                            ref.id = name
                        kept_refs += refs
                        continue
                    kept[key] = (stmt.name, refs)
            out.append(stmt)
        return out


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Hoist the helpers control_flow generated as far up as their free names allow, merge
    the state functions that became identical neighbours, and bind the operands of the
    conditional expressions in loops (`loop_operands`) and the constant options of the loops
    inside helpers (`loop_options`) once."""
    in_loops = _in_loops(node, ctx.generated)
    hoister = _Hoister(ctx, in_loops | _too_deep(node.body, ctx.generated))
    node.body = hoister.final_block(node.body)
    if hoister.renamed:
        _name_targets(node, hoister.renamed)
    loop_operands.transform(node, ctx, in_loops)
    return loop_options.transform(node, ctx)


def _name_targets(node: gast.FunctionDef, renamed: dict[str, str]) -> None:
    """A for loop whose body's parameter `_share` renamed passes its target as `iterate_names`
    (without it, the runtime takes the parameter's name for the target's: runtime.operators.target_names)."""
    for stmt in statements(node.body):
        if type(stmt) is not gast.Expr or type(stmt.value) is not gast.Call:
            continue
        call = stmt.value
        if called_operator(call) != "for_stmt" or len(call.args) < 2 or type(call.args[1]) is not gast.Name:
            continue
        target = renamed.get(call.args[1].id)
        if target is None:
            continue
        opts = next((k.value for k in call.keywords if k.arg == "opts"), None)
        if opts is None:
            opts = gast.Dict(keys=[], values=[])
            call.keywords.append(gast.keyword(arg="opts", value=opts))
        if type(opts) is gast.Dict and not any(type(k) is gast.Constant and k.value == "iterate_names" for k in opts.keys):
            opts.keys.append(gast.Constant(value="iterate_names", kind=None))
            opts.values.append(gast.Constant(value=target, kind=None))


# loop operator -> positions of the helpers it calls at every iteration
_LOOP_HELPERS = {"while_stmt": (0, 1), "for_stmt": (1,)}


def _in_loops(node: gast.FunctionDef, generated: dict[int, gast.AST]) -> frozenset[int]:
    """The ids of the generated helpers that run once per iteration of a loop: loop bodies and
    tests, and the helpers defined anywhere inside them. (Operator calls are expression
    statements, and helpers statements: only statement blocks are walked.)"""
    defs = {d.name: d for d in generated.values() if type(d) is gast.FunctionDef}
    roots = []
    for stmt in statements(node.body):
        if type(stmt) is not gast.Expr or type(stmt.value) is not gast.Call:
            continue
        call = stmt.value
        positions = _LOOP_HELPERS.get(called_operator(call))
        if positions is None:
            continue
        passed = [call.args[i] for i in positions if i < len(call.args)]
        passed += [k.value for k in call.keywords if k.arg == "extra_test"]
        roots += [defs[p.id] for p in passed if type(p) is gast.Name and p.id in defs]
    return frozenset(id(d) for d in statements(roots) if type(d) is gast.FunctionDef and id(d) in generated)


_MAX_NESTING = 12


def _too_deep(block: list[gast.stmt], generated: dict[int, gast.AST]) -> frozenset[int]:
    """The ids of the generated helpers nested _MAX_NESTING or more helpers deep (an elif chain's
    else branches): their helpers move up to that depth, where the chain is written flat."""
    found: set[int] = set()
    stack = [(stmt, 0) for stmt in block]
    while stack:  # a chain may be thousands of arms long: no recursion
        stmt, level = stack.pop()
        if type(stmt) is gast.FunctionDef and id(stmt) in generated:
            level += 1
            if level >= _MAX_NESTING:
                found.add(id(stmt))
        for field in BLOCK_FIELDS[type(stmt)]:
            inner = getattr(stmt, field, None)
            if type(inner) is list:
                stack.extend((child, level) for child in inner)
    return frozenset(found)
