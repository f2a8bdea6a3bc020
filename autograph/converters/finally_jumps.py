"""finally_jumps: a jump out of a `finally:` block cancels the exception in flight.

Python drops the pending exception when a `finally:` block ends in `break`,
`continue` or `return`. Once the jump passes have lowered those jumps into
flags, the block ends normally and the exception would go on, so such a try
first catches the exception itself, and raises it again after the statement
unless a jump ran:

    for x in xs:                        for x in xs:
        try:                                finally_error = None
            body                            try:
        finally:                                body
            if x < 0:            ->         except BaseException as caught:
                break                           finally_error = caught
            log(x)                          finally:
                                                if x < 0:
                                                    finally_error = None
                                                    break
                                                log(x)
                                            if finally_error is not None:
                                                raise finally_error

A try with handlers keeps them on an inner try, so the catch-all sees only
what they let through. Runs before the jump passes, which lower the jumps.

Such a jump also cancels a return, break or continue pending from the try's
body: once the jump passes have run, `cancel_pending` clears, before each
`finally_error = None`, the flags the body's lowered jumps may have set
(`do_return = False` when the finally block continues a loop the body
returned from), so that only the finally block's own jump stays. An
exception raised while a jump leaves (by a finally block or an `__exit__`)
cancels the jump as well: the handlers that may catch it clear its flags.
"""

from __future__ import annotations

import gast

from autograph.analysis.traversal import BLOCK_FIELDS, Transformer, statements
from autograph.converters.context import Context
from autograph.source.origins import inherit_location
from autograph.source.templates import replace

__all__ = ["transform", "jumps_out", "cancel_pending"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_LOOPS = (gast.For, gast.While, gast.AsyncFor)


def jumps_out(block: list[gast.stmt], in_loop: bool = False) -> list[gast.stmt]:
    """The jumps of `block` that leave it: every return, and the break/continue of no loop inside it."""
    found: list[gast.stmt] = []
    for stmt in block:
        if isinstance(stmt, _SCOPES):
            continue
        if isinstance(stmt, gast.Return) or (isinstance(stmt, (gast.Break, gast.Continue)) and not in_loop):
            found.append(stmt)
        inner_loop = in_loop or isinstance(stmt, _LOOPS)
        for field in ("body", "orelse", "finalbody"):
            nested = getattr(stmt, field, None)
            if isinstance(nested, list):
                # a loop's else: runs after the loop, so its jumps are the enclosing code's
                found += jumps_out(nested, in_loop if field == "orelse" else inner_loop)
        for child in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ():
            found += jumps_out(child.body, in_loop)
    return found


class _FinallyJumps(Transformer):
    statements_only = True

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def visit_FunctionDef(self, node: gast.FunctionDef) -> gast.FunctionDef:
        return node  # nested functions are converted on their own

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Try(self, node: gast.Try) -> gast.AST | list[gast.stmt]:
        self.generic_visit(node)
        jumps = jumps_out(node.finalbody) if node.finalbody else []
        if not jumps:
            return node
        error = self.ctx.namespace.new("finally_error")
        caught = self.ctx.namespace.new("caught")
        resets: list[gast.stmt] = []
        for jump in jumps:
            reset = replace("error = None", jump, error=error)
            _insert_before(node.finalbody, jump, reset)
            resets.append(reset[0])
        body = node.body
        if node.handlers or node.orelse:
            inner = gast.Try(body=node.body, handlers=node.handlers, orelse=node.orelse, finalbody=[])
            body = [gast.copy_location(inner, node)]
        code = replace(
            """
            error = None
            try:
                body
            except BaseException as caught:
                error = caught
            finally:
                finalbody
            if error is not None:
                raise error
            """,
            node,
            error=error,
            caught=caught,
            body=body,
            finalbody=node.finalbody,
        )
        inherit_location(code, node)
        # the new try's body, handler and else hold the jumps the finally block's jumps cancel
        self.ctx.finally_jumps += [(reset, code[1]) for reset in resets]
        return code


def cancel_pending(fn: gast.FunctionDef, ctx: Context) -> None:
    """After the jump passes: clear the flags of jumps that a later jump or an exception cancels.

    A jump out of a finally block clears the flags its try's body may have
    set. An exception raised after a jump started (by a finally block or an
    `__exit__` on its way out) cancels it too: a handler that catches it
    clears, first thing, the flags set under the try/finally and with
    statements of its try's body; a with statement's body clears them when
    an exception leaves it, since its `__exit__` may swallow that exception
    and let the function go on.
    """
    set_true = {id(s) for s in ctx.flag_stores if isinstance(s.value, gast.Constant) and s.value.value is True}
    set_aside: dict[int, list[str]] = {}  # a try -> the names holding its pending flags
    for reset, try_ in ctx.finally_jumps:
        blocks = [try_.body, try_.orelse, *(handler.body for handler in try_.handlers)]
        pending = _pending_flags(blocks, set_true)
        if pending and id(try_) not in set_aside:
            set_aside[id(try_)] = _set_aside(try_, pending, ctx)
        # before the jump's own flag, which may be one of them; the jump cancels the pending ones
        clears = _clears(pending + set_aside.get(id(try_), []), reset)
        _insert_before(fn.body, reset, clears)
    withs = []
    for stmt in statements(fn.body):
        if isinstance(stmt, gast.Try) and stmt.handlers:
            flags = _flags_exiting(stmt.body, set_true)
            for handler in stmt.handlers if flags else ():
                handler.body[:0] = _clears(flags, handler)
        elif isinstance(stmt, gast.With):
            withs.append(stmt)
    for with_ in withs:  # its __exit__ may swallow what cancelled a jump: the body clears on the way out
        flags = _flags_exiting(with_.body, set_true)
        if flags:
            template = "try:\n    body\nexcept BaseException:\n    clears\n    raise"
            with_.body = replace(template, with_, body=with_.body, clears=_clears(flags, with_))


def _set_aside(try_: gast.Try, pending: list[str], ctx: Context) -> list[str]:
    """The finally block runs whole whatever jump is pending: its own guards must not read that jump's flag.

        finally:                            finally:
            if c:                               pending_do_return = do_return
                retval = 2                      do_return = False
                do_return = True                if c:
            if not do_return:        ->             pending_do_return = False
                raise E()                           retval = 2
                                                    do_return = True
                                                if not do_return:
                                                    raise E()
                                                if pending_do_return:
                                                    do_return = True

    A jump of its own cancels the pending one: it clears the names that hold
    the pending flags too (see `cancel_pending`). Ending normally lets the
    pending jump go on. Returns those names.
    """
    before: list[gast.stmt] = []
    after: list[gast.stmt] = []
    names = []
    for flag in pending:
        saved = ctx.namespace.new(f"pending_{flag}")
        names.append(saved)
        before += replace("saved = flag\nflag = False", try_, saved=saved, flag=flag)
        after += replace("if saved:\n    flag = True", try_, saved=saved, flag=flag)
    try_.finalbody[:0] = before
    try_.finalbody += after
    return names


def _pending_flags(blocks: list[list[gast.stmt]], set_true: set[int]) -> list[str]:
    """The flags a jump may leave set when a try's finally block starts, set under `blocks`.

    A return's anywhere; a break's or continue's only outside the loops nested
    in `blocks` (a loop's `else:` is outside it): those leave their own loop,
    which has ended, and their flag may never have been bound on the way in.
    """
    found = set()
    stack = [(stmt, False) for block in blocks for stmt in block]
    while stack:
        node, in_loop = stack.pop()
        if id(node) in set_true:
            flag = node.targets[0].id
            if not in_loop or flag.startswith("do_return"):
                found.add(flag)
        if isinstance(node, _SCOPES):
            continue
        for field in BLOCK_FIELDS[type(node)]:
            inner = getattr(node, field, None)
            if type(inner) is list:
                nested = in_loop or (field == "body" and isinstance(node, (gast.For, gast.While)))
                stack.extend((child, nested) for child in inner)
    return sorted(found)


def _flags_exiting(block: list[gast.stmt], set_true: set[int]) -> list[str]:
    """The flags set under `block`'s try/finally and with statements: an exception may follow them."""
    exiting = [s for s in statements(block) if isinstance(s, gast.With) or _has_finally(s)]
    return _flags_set([s.body + _others(s) for s in exiting], set_true)


def _has_finally(stmt: gast.stmt) -> bool:
    return isinstance(stmt, gast.Try) and bool(stmt.finalbody)


def _others(stmt: gast.stmt) -> list[gast.stmt]:
    """A try's statements besides its body (handlers and else), which run before its finally block."""
    if not isinstance(stmt, gast.Try):
        return []
    return [s for handler in stmt.handlers for s in handler.body] + stmt.orelse


def _flags_set(blocks: list[list[gast.stmt]], set_true: set[int]) -> list[str]:
    return sorted({stmt.targets[0].id for block in blocks for stmt in statements(block) if id(stmt) in set_true})


def _clears(flags: list[str], loc: gast.AST) -> list[gast.stmt]:
    return [s for flag in flags for s in replace("flag = False", loc, flag=flag)]


def _insert_before(block: list[gast.stmt], target: gast.stmt, new: list[gast.stmt]) -> bool:
    """Put `new` right before `target`, wherever in `block` it is nested."""
    for index, stmt in enumerate(block):
        if stmt is target:
            block[index:index] = new
            return True
        if isinstance(stmt, _SCOPES):
            continue
        inner = [getattr(stmt, f, None) for f in ("body", "orelse", "finalbody")]
        inner += [child.body for child in getattr(stmt, "handlers", None) or getattr(stmt, "cases", None) or ()]
        if any(isinstance(b, list) and _insert_before(b, target, new) for b in inner):
            return True
    return False


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Make the jumps out of the function's `finally:` blocks drop the exception in flight."""
    transformer = _FinallyJumps(ctx)
    node.body = [s for stmt in node.body for s in _as_list(transformer.visit(stmt))]
    return node


def _as_list(result: gast.AST | list) -> list:
    return result if isinstance(result, list) else [result]
