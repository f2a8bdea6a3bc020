"""The statement writer of the program generator (program_generator.py).

`StatementWriter` emits the body of `f` line by line: simple statements
(program_simple_statements.py), if/elif/else (whose branches may end in
`del` of one name), for and while loops (each with an optional else, and the
search idiom: an `if` that binds a name and breaks, and an `else:` that binds
it too), try (with handlers, or with `finally:` alone), with (on the
prelude's `Ctx` or `contextlib.nullcontext()`), returns, jumps and local
functions (some with a multi-line docstring that is printed), tracking
which names are bound on every path (`Scope.defined`) and on some path
(`Scope.maybe`) so that reads are mostly of bound names. `Where` (beside the
simple statements) says what may be generated at a point.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.autograph.program_expressions import (
    ATTRIBUTE_NAME,
    GLOBAL_NAME,
    HELPER_LOCALS,
    Expressions,
    Scope,
    kind_of,
)
from tests.autograph.program_literals import multiline_literal
from tests.autograph.program_simple_statements import LOCALS, Where, simple_statement

__all__ = ["LOCALS", "Where", "StatementWriter"]

_MAX_STATEMENTS = 18
_MAX_DEPTH = 3
# What an `except` clause catches; a handler of one of _NAMED may print `type(e).__name__`
# (never of a NameError: converted code may raise UnboundLocalError for it, which is allowed).
_CAUGHT = ("ZeroDivisionError", "IndexError", "ValueError", "MyError", "ArithmeticError",
           "(IndexError, ZeroDivisionError)", "Exception")
_NAMED = frozenset(_CAUGHT[:5])


@dataclass
class StatementWriter:
    """Writes `f`'s body into `lines`, at most `budget` statements, drawing
    every choice from `ex`; `skip` names the FEATURES to leave out."""

    ex: Expressions
    skip: frozenset[str] = frozenset()
    lines: list[str] = field(default_factory=list)
    budget: int = _MAX_STATEMENTS
    guards: int = 0
    helpers: int = 0

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)
        self.budget -= 1

    # -- blocks --
    def block(self, indent: int, scope: Scope, where: Where, size: int) -> tuple[Scope, bool]:
        """Emit up to `size` statements; returns the scope after and whether
        control always leaves the block (return/raise/break/continue)."""
        start = len(self.lines)
        risky = self.ex.risky
        if where.depth > 0 and "unbound_reads_in_blocks" in self.skip:
            self.ex.risky = False
        leaves = False
        for _ in range(size):
            if self.budget <= 0:
                break
            if self.statement(indent, scope, where):
                leaves = True
                break
        if len(self.lines) == start:
            self.emit(indent, simple_statement(self.ex, scope, where))
        self.ex.risky = risky
        return scope, leaves

    def statement(self, indent: int, scope: Scope, where: Where) -> bool:
        """Emit one statement; True when it always leaves the block."""
        compound = where.depth < _MAX_DEPTH and self.budget > 2
        loops = compound and not (where.in_try and "loops_in_try" in self.skip)
        leave = where.may_leave
        kind = self.ex.weighted([
            ("assign", 8), ("augassign", 4), ("print", 3), ("if", 5 * compound),
            ("for", 3 * loops), ("while", 3 * loops), ("unpack", 2), ("append", 2),
            ("return", 2 * leave), ("jump", 3 * where.in_loop * leave), ("raise", 1 * leave),
            ("assert", 1),
            ("del", 1 * (not where.in_loop and not where.in_helper
                         and (where.depth == 0 or "del_in_blocks" not in self.skip))),
            ("helper", (1 + (where.depth == 0)) * (not where.in_helper and self.helpers < 2)),
            ("walrus", 1 * compound), ("call", 2 * bool(scope.helpers)),
            ("setitem", 2 * ("subscripts" not in self.skip)),
            ("try", 2 * compound * ("try" not in self.skip)),
            ("with", 1 * compound * ("with" not in self.skip)),
            ("closure", 1 * (not where.in_helper and "closures" not in self.skip)),
            ("text", 1 * ("multiline_text" not in self.skip)),
            ("search", 1 * loops * where.may_leave),
        ])
        if kind in ("if", "walrus"):
            return self.if_(indent, scope, where, walrus=kind == "walrus")
        if kind == "try":
            return self.try_(indent, scope, where)
        if kind == "with":
            return self.with_(indent, scope, where)
        if kind == "search":
            return self.search(indent, scope, where)
        if kind == "for":
            return self.for_(indent, scope, where)
        if kind == "while":
            return self.while_(indent, scope, where)
        if kind == "helper":
            self.helper(indent, scope)
            return False
        if kind == "return":
            self.emit(indent, self.return_(scope, where))
            return True
        if kind == "jump":
            self.emit(indent, self.ex.pick(["break", "continue"]))
            return True
        if kind == "raise":
            error = self.ex.pick(["MyError", "ValueError", "IndexError"])
            self.emit(indent, f"raise {error}({self.ex.tag('e')})")
            return True
        self.emit(indent, simple_statement(self.ex, scope, where, kind))
        return False

    def return_(self, scope: Scope, where: Where) -> str:
        if where.in_helper:
            return f"return {self.ex.int_(scope)}"
        form = self.ex.pick(["value", "tuple", "bare"])
        if form == "bare":
            return "return"
        kind = self.ex.pick(["int", "float", "list"])
        if form == "tuple":
            return f"return {self.ex.int_(scope, 1)}, {self.ex.of_kind(kind, scope, 1)}"
        return f"return {self.ex.of_kind(kind, scope)}"

    # -- compound statements --
    def if_(self, indent: int, scope: Scope, where: Where, walrus: bool = False) -> bool:
        ex = self.ex
        test = ex.bool_(scope)
        if walrus:
            target = ex.pick([n for n in where.assignable if kind_of(n) == "int" and n.isidentifier()])
            test = f"({target} := {ex.int_(scope)}) {ex.pick(['>', '<', '=='])} {ex.num(0, 4)}"
            scope.bind(target)
        # a name some or all branches `del` at their end (read after the if: UnboundLocalError)
        deletable = sorted(scope.defined & set(where.assignable)) if "del_in_blocks" not in self.skip else []
        deleted = ex.pick(deletable) if deletable and self.budget > 4 and ex.chance(15) else None
        everywhere = deleted is not None and ex.chance(70)
        self.emit(indent, f"if {test}:")
        branches = [self._branch(indent, scope, where, ex.num(1, 3), deleted)]
        for _ in range(ex.num(0, 2) if self.budget > 2 else 0):
            self.emit(indent, f"elif {ex.bool_(scope)}:")
            branches.append(self._branch(indent, scope, where, ex.num(1, 2), deleted if everywhere else None))
        if (self.budget > 1 and ex.chance(50)) or everywhere:
            self.emit(indent, "else:")
            branches.append(self._branch(indent, scope, where, ex.num(1, 3), deleted if everywhere else None))
        else:
            branches.append((scope.copy(), False))
        return self._merge(scope, branches)

    def _branch(self, indent: int, scope: Scope, where: Where, size: int, deleted: str | None) -> tuple[Scope, bool]:
        """One branch of an if, ending in `del deleted` unless it leaves (or deleted it already)."""
        branch, leaves = self.block(indent + 1, scope.copy(), where.nested(), size)
        if deleted is not None and not leaves and deleted in branch.defined:
            self.emit(indent + 1, f"del {deleted}")
            branch.unbind(deleted)
        return branch, leaves

    @staticmethod
    def _merge(scope: Scope, branches: list[tuple[Scope, bool]]) -> bool:
        """Rebind `scope` to what holds after the branches join."""
        open_ = [s for s, leaves in branches if not leaves]
        joined = Scope.join(scope, open_ or [s for s, _ in branches])
        for branch, _ in branches:
            joined.maybe |= branch.maybe | branch.defined
        scope.defined, scope.maybe = joined.defined, joined.maybe
        return not open_

    def try_(self, indent: int, scope: Scope, where: Where) -> bool:
        """try with one or two handlers, an optional else and an optional
        finally (which may jump out: return, raise, break, continue). A name
        the body or a handler binds is only maybe bound after: the body may
        have raised early."""
        ex = self.ex
        self.emit(indent, "try:")
        body, _ = self.block(indent + 1, scope.copy(), where.nested(in_try=True), ex.num(1, 3))
        branches = [body, scope.copy()]
        if ex.chance(25):  # `try: ... finally:` alone
            self._merge(scope, [(branch, False) for branch in branches])
            self.emit(indent, "finally:")
            self.block(indent + 1, scope, where.nested(may_leave=False), ex.num(1, 2))
            return False
        for _ in range(ex.num(1, 2)):
            caught = ex.pick(_CAUGHT)
            named = caught in _NAMED and ex.chance(30)
            self.emit(indent, f"except {caught}{' as e' if named else ''}:")
            if named:
                self.emit(indent + 1, f"print({ex.tag('h')}, type(e).__name__)")
            branches.append(self.block(indent + 1, scope.copy(), where.nested(), ex.num(1, 2))[0])
        if self.budget > 1 and ex.chance(30):
            self.emit(indent, "else:")
            branches.append(self.block(indent + 1, body.copy(), where.nested(), ex.num(1, 2))[0])
        self._merge(scope, [(branch, False) for branch in branches])
        if self.budget > 1 and ex.chance(40):
            self.emit(indent, "finally:")
            # a jump out of the finally block drops the exception or jump in flight
            leave = where.may_leave and "jump_in_finally" not in self.skip and ex.chance(40)
            self.block(indent + 1, scope, where.nested(may_leave=leave), ex.num(1, 2))
        return False

    def with_(self, indent: int, scope: Scope, where: Where) -> bool:
        """A with statement on the prelude's `Ctx`, which may swallow what its
        body raises: control may then go on after the with from any point of
        the body, so a name the body binds is only maybe bound after it."""
        ex = self.ex
        swallow = ex.pick(["True", "False", ex.bool_(scope, 1)])
        header = f"with Ctx({ex.int_(scope, 1)}, {swallow})"
        if ex.chance(25):
            header = "with contextlib.nullcontext()"
        elif ex.chance(50):
            target = ex.pick([n for n in where.assignable if kind_of(n) == "int" and n.isidentifier()])
            header += f" as {target}"
            scope.bind(target)
        self.emit(indent, f"{header}:")
        body, _ = self.block(indent + 1, scope.copy(), where.nested(in_try=True), ex.num(1, 3))
        self._merge(scope, [(body, False), (scope.copy(), False)])
        return False

    def for_(self, indent: int, scope: Scope, where: Where) -> bool:
        ex = self.ex
        ints = [n for n in where.assignable if kind_of(n) == "int"]
        target = ex.pick(ints)
        lists = sorted(n for n in scope.defined if kind_of(n) == "list")
        form = ex.weighted([("range", 4), ("list", 3 * bool(lists)), ("tuple", 2),
                            ("enumerate", 2 * bool(lists)), ("zip", 2 * bool(lists)),
                            ("generator", 1), ("genexp", 1 * bool(lists))])
        iterated = where.iterated
        if form == "range":
            bound = ex.pick([str(ex.num(0, 4)), f"min({ex.int_(scope, 1)}, 4)"])
            iterable = ex.pick([f"range({bound})", f"range({ex.num(0, 2)}, {bound})",
                                f"range({ex.num(3, 5)}, {ex.num(-1, 1)}, -1)"])
        elif form == "tuple":
            iterable = f"({', '.join(ex.int_(scope, 1) for _ in range(ex.num(1, 3)))},)"
        elif form == "generator":
            iterable = f"countdown(min({ex.int_(scope, 1)}, 4))"
        elif form == "genexp":  # reads its free name lazily, at each step of the loop
            source = ex.pick(lists)
            iterated = iterated | {source}
            iterable = f"(v + {ex.int_(scope, 0)} for v in {source}[:3])"
        else:
            source = ex.pick(lists)
            iterated = iterated | {source}
            if where.depth > 0 or where.in_helper:
                source = f"{source}[:3]"
            iterable = source
            if form == "enumerate":
                second = ex.pick([n for n in ints if n != target] or ints)
                target = f"{target}, {second}" if second != target else target
                iterable = f"enumerate({source})"
            elif form == "zip":
                second = ex.pick([n for n in ints if n != target] or ints)
                target = f"{target}, {second}" if second != target else target
                iterable = f"zip({source}, range({ex.num(1, 4)}))"
                others = [n for n in ints if n not in target.split(", ")]
                if ", " in target and others and ex.chance(50):
                    target = f"{ex.pick(others)}, ({target})"
                    iterable = f"enumerate({iterable})"
        self.emit(indent, f"for {target} in {iterable}:")
        body_scope = scope.copy()
        for name in target.replace("(", "").replace(")", "").split(", "):
            body_scope.bind(name)
        inner = where.nested(in_loop=True, iterated=iterated)
        body, _ = self.block(indent + 1, body_scope, inner, ex.num(1, 3))
        return self._loop_end(indent, scope, where, body)

    def while_(self, indent: int, scope: Scope, where: Where) -> bool:
        ex = self.ex
        guard = f"w{self.guards}"
        self.guards += 1
        limit = ex.num(1, 4)
        self.emit(indent, f"{guard} = 0")
        self.budget += 1
        test = f"{guard} < {limit}"
        if ex.chance(70):
            cond = ex.bool_(scope, 1)
            if ex.chance(15):
                target = ex.pick([n for n in where.assignable
                                  if kind_of(n) == "int" and n.isidentifier()])
                cond = f"({target} := {ex.int_(scope, 1)}) {ex.pick(['>', '!='])} {ex.num(0, 3)}"
                scope.bind(target)
            test = ex.pick([f"{test} and ({cond})", f"({cond}) and {test}"])
        self.emit(indent, f"while {test}:")
        self.emit(indent + 1, f"{guard} += 1")
        self.budget += 1
        inner = where.nested(in_loop=True)
        body, _ = self.block(indent + 1, scope.copy(), inner, ex.num(1, 3))
        return self._loop_end(indent, scope, where, body)

    def search(self, indent: int, scope: Scope, where: Where) -> bool:
        """The search idiom: a loop whose `if` binds a name and breaks, and whose `else:` binds it
        too, so the name is bound after the loop on every path."""
        ex = self.ex
        name = ex.pick([n for n in where.assignable if kind_of(n) == "int" and n.isidentifier()])
        target = ex.pick([n for n in where.assignable if kind_of(n) == "int" and n.isidentifier()])
        self.emit(indent, f"for {target} in range({ex.pick([str(ex.num(0, 4)), f'min({ex.int_(scope, 1)}, 4)'])}):")
        body = scope.copy()
        body.bind(target)
        inner = where.nested(in_loop=True)
        if ex.chance(40):
            self.block(indent + 1, body, inner, 1)
        self.emit(indent + 1, f"if {ex.bool_(body)}:")
        self.emit(indent + 2, f"{name} = {ex.pick([target, ex.int_(body)])}")
        self.emit(indent + 2, "break")
        self.emit(indent, "else:")
        self.emit(indent + 1, f"{name} = {ex.int_(scope)}")
        self._merge(scope, [(body, False), (scope.copy(), False)])
        scope.bind(name)
        return False

    def _loop_end(self, indent: int, scope: Scope, where: Where, body: Scope) -> bool:
        """An optional `else:` block, then the join: the body may not have run."""
        branches = [(body, False), (scope.copy(), False)]
        if self.budget > 1 and self.ex.chance(25):
            self.emit(indent, "else:")
            orelse = scope.copy()
            orelse.maybe |= body.maybe | body.defined
            inner = where.nested(may_leave="loop_else_leaves" not in self.skip,
                                 in_loop=where.in_loop and "jump_in_loop_else" not in self.skip)
            branches.append(self.block(indent + 1, orelse, inner, self.ex.num(1, 2)))
        self._merge(scope, branches)
        return False

    def helper(self, indent: int, scope: Scope) -> None:
        """A local function with its own control flow, reading (or, through
        `nonlocal`, rebinding) the enclosing function's int variables."""
        ex = self.ex
        name = f"h{self.helpers}"
        self.helpers += 1
        self.emit(indent, f"def {name}(p):")
        documented = "multiline_text" not in self.skip and ex.chance(25)
        if documented:  # a docstring the converted code must keep as written
            self.emit(indent + 1, multiline_literal(ex, []))
        own = HELPER_LOCALS
        outer_ints = sorted(n for n in scope.defined if kind_of(n) == "int" and n in LOCALS)
        if outer_ints and "nonlocal" not in self.skip and ex.chance(60):
            shared = ex.pick(outer_ints)
            self.emit(indent + 1, f"nonlocal {shared}")
            own = own + (shared,)
        if GLOBAL_NAME in scope.maybe and ex.chance(40):
            self.emit(indent + 1, f"global {GLOBAL_NAME}")
            own = own + (GLOBAL_NAME,)
        if ATTRIBUTE_NAME in scope.maybe:
            own = own + (ATTRIBUTE_NAME,)
        inner_scope = Scope(scope.defined | {"p"}, scope.maybe | {"p"})
        where = Where(depth=1, in_helper=True, assignable=own)
        _, leaves = self.block(indent + 1, inner_scope, where, ex.num(1, 4))
        if not leaves:
            self.emit(indent + 1, f"return {ex.int_(inner_scope)}")
        scope.helpers.append(name)
        if documented and ex.chance(50):
            self.emit(indent, f"print({ex.tag('d')}, {name}.__doc__)")
