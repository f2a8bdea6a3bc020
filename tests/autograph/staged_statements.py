"""The statement writer of the staged program generator (staged_programs.py).

`StagedWriter` emits the body of `f` line by line: assignments, augmented
assignments, item assignments into vectors (`u[t] = ...`, `u[u > 0.0] += ...`), `ag.print`, if/elif/else, guarded while loops, for loops over
`ag.range(...)` and over vectors, break/continue, early returns and local
helper functions with their own control flow; `del` at the end of branches,
the search idiom (a loop whose tensor-dependent `if` binds a name and
breaks, and whose `else:` binds it too), and `with contextlib.nullcontext():`
or `try: ... finally:` around statements (which trace as in TensorFlow), multi-line
docstrings and the length of multi-line literals (program_literals.py). It tracks which names are
bound on every path (`Scope.defined`) so that almost every read is of a name
bound on both sides of a staged branch and before a staged loop; the rare
read of a name bound on some paths only is where staging must refuse with a
StagingError naming the line.

Every return of `f` returns the same kind of value (`returns`), so the
branches of a staged if that both return agree; a helper returns a float.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from tests.autograph.program_expressions import Expressions, Scope
from tests.autograph.program_literals import multiline_literal
from tests.autograph.program_statements import Where
from tests.autograph.staged_expressions import (
    FLOAT_NAMES,
    INT_NAMES,
    VEC_NAMES,
    Indices,
    StagedExpressions,
    kind_of,
)

__all__ = ["LOCALS", "RETURN_KINDS", "StagedWriter"]

_MAX_STATEMENTS = 16
_MAX_DEPTH = 3
LOCALS = INT_NAMES + FLOAT_NAMES + VEC_NAMES
_HELPER_LOCALS = ("q", "r")  # a helper's own float variables
RETURN_KINDS = ("float", "int", "vec", "pair")


def _may_alias(value: str) -> bool:
    """Whether `value` may be an array another name holds (`y = x`, `y = x if
    c else z`, `y = min(x, z)`): the original would then change both in place
    at `y += 1`, where a Tensor is a value and only `y` changes (see
    docs/differences.md). Such assignments copy."""
    node = ast.parse(value, mode="eval").body
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in ("min", "max")
    return isinstance(node, (ast.Name, ast.IfExp, ast.BoolOp))


@dataclass
class StagedWriter:
    """Writes `f`'s body into `lines`, at most `budget` statements, drawing
    every choice from `ex`; every return of `f` returns a `returns` value."""

    ex: Expressions
    returns: str = "float"
    lines: list[str] = field(default_factory=list)
    budget: int = _MAX_STATEMENTS
    guards: int = 0
    helpers: int = 0

    def __post_init__(self) -> None:
        self.values = StagedExpressions(self.ex)

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)
        self.budget -= 1

    # -- blocks --
    def block(self, indent: int, scope: Scope, where: Where, size: int) -> tuple[Scope, bool]:
        """Emit up to `size` statements; returns the scope after and whether
        control always leaves the block (return/break/continue)."""
        start = len(self.lines)
        for _ in range(size):
            if self.budget <= 0:
                break
            if self.statement(indent, scope, where):
                return scope, True
        if len(self.lines) == start:
            self.emit(indent, self._assign(scope, where))
        return scope, False

    def statement(self, indent: int, scope: Scope, where: Where) -> bool:
        """Emit one statement; True when it always leaves the block."""
        ex = self.ex
        compound = where.depth < _MAX_DEPTH and self.budget > 2
        kind = ex.weighted([
            ("assign", 8), ("augassign", 5), ("item", 3), ("print", 3), ("if", 6 * compound),
            ("for_range", 3 * compound), ("for_vec", 2 * compound), ("for_index", 2 * compound),
            ("while", 3 * compound), ("return", 2 * where.may_leave),
            ("jump", 3 * where.in_loop),
            ("helper", (1 + (where.depth == 0)) * (not where.in_helper and self.helpers < 2)),
            ("text", 2),
            ("search", 2 * compound), ("guarded", 2 * compound),
        ])
        if kind == "if":
            return self.if_(indent, scope, where)
        if kind == "search":
            return self.search(indent, scope, where)
        if kind == "guarded":
            return self.guarded(indent, scope, where)
        if kind == "while":
            return self.while_(indent, scope, where)
        if kind.startswith("for_"):
            return self.for_(indent, scope, where, kind)
        if kind == "helper":
            self.helper(indent, scope)
            return False
        if kind == "return":
            self.emit(indent, self.return_(scope, where))
            return True
        if kind == "jump":
            self.emit(indent, ex.pick(["break", "continue"]))
            return True
        if kind == "print":
            value = self.values.of_kind(ex.pick(["int", "float", "vec"]), scope, 1)
            self.emit(indent, f"ag.print({ex.tag('p')}, {value})")
            return False
        if kind == "text":
            self.text(indent, scope, where)
            return False
        if kind == "item" and (text := self._item(scope, where)):
            self.emit(indent, text)
            return False
        if kind == "augassign" and (text := self._augassign(scope, where)):
            self.emit(indent, text)
            return False
        self.emit(indent, self._assign(scope, where))
        return False

    def text(self, indent: int, scope: Scope, where: Where, printed: bool = False) -> None:
        """A multi-line literal, printed (at every run, so its text is compared whatever `f`
        returns) or its length added to a variable; its fields are Python ints, never staged."""
        ex = self.ex
        literal = multiline_literal(ex, [str(ex.num(0, 9)), "len('ab')"])
        if printed or ex.chance(60):
            self.emit(indent, f"ag.print({ex.tag('s')}, {literal})")
            return
        name = ex.pick(where.assignable)
        value = self.values.of_kind(kind_of(name), scope, 1)
        scope.bind(name)
        self.emit(indent, f"{name} = {value} + len({literal})")

    def _assign(self, scope: Scope, where: Where) -> str:
        name = self.ex.pick(where.assignable)
        value = self._copied(self.values.of_kind(kind_of(name), scope))
        scope.bind(name)
        return f"{name} = {value}"

    @staticmethod
    def _copied(value: str) -> str:
        """`value`, copied when it may be an array another name holds (see `_may_alias`)."""
        return f"np.copy({value})" if _may_alias(value) else value

    def _augassign(self, scope: Scope, where: Where) -> str | None:
        names = sorted(n for n in scope.defined & set(where.assignable))
        if not names:
            return None
        ex, name = self.ex, self.ex.pick(names)
        kind = kind_of(name)
        if kind == "int":
            op = ex.pick(["+=", "-=", "//=", "%="])
            value = ex.pick(["2", "3"]) if op in ("//=", "%=") else self.values.int_(scope, 1)
            return f"{name} {op} {value}"
        op = ex.pick(["+", "-", "*"])
        if op == "*":
            other = ex.pick(["0.5", "-1.0", "2.0"])
        elif kind == "float" or ex.chance(50):
            other = self.values.float_(scope, 1)
        else:
            other = self.values.vec_(scope, 1)
        if kind == "vec":  # `u += 1.0` would change the array in place, and every alias of it
            return f"{name} = {name} {op} {self.values.atom(other)}"
        return f"{name} {op}= {other}"

    def _item(self, scope: Scope, where: Where) -> str | None:
        """`u[t] = value`, `u[t] += value` (t a valid index here) or `u[mask] op= value` on a vector
        variable: staged as an update of the function's own array, refused (a StagingError naming the
        line) where the vector may share memory with another name or an argument."""
        names = sorted(n for n in scope.defined & set(where.assignable) if kind_of(n) == "vec")
        if not names:
            return None
        ex, values = self.ex, self.values
        name = ex.pick(names)
        if values.indices.names and ex.chance(60):
            key = ex.pick(list(values.indices.names))
        else:
            key = f"{name} {ex.pick(['>', '<'])} {values.float_(scope, 1)}"
        op = ex.pick(["=", "+=", "-=", "*="])
        value = ex.pick(["0.5", "-1.0", "2.0"]) if op == "*=" else values.float_(scope, 1)
        return f"{name}[{key}] {op} {value}"

    def return_(self, scope: Scope, where: Where) -> str:
        values = self.values
        if where.in_helper:
            return f"return {values.float_(scope)}"
        if self.returns == "pair":
            return f"return {values.float_(scope, 1)}, {values.int_(scope, 1)}"
        return f"return {values.of_kind(self.returns, scope)}"

    # -- compound statements --
    def if_(self, indent: int, scope: Scope, where: Where) -> bool:
        ex = self.ex
        # a name some or all branches `del` at their end: read after the if, staging must refuse
        deletable = sorted(scope.defined & set(where.assignable))
        vectors = [n for n in deletable if kind_of(n) == "vec"]
        if len(vectors) < 2:  # keep a vector: vector expressions need one (see StagedExpressions.vec_)
            deletable = [n for n in deletable if kind_of(n) != "vec"]
        deleted = ex.pick(deletable) if deletable and self.budget > 4 and ex.chance(25) else None
        everywhere = deleted is not None and ex.chance(70)
        self.emit(indent, f"if {self.values.bool_(scope)}:")
        branches = [self._branch(indent, scope, where, ex.num(1, 3), deleted)]
        for _ in range(ex.num(0, 2) if self.budget > 2 else 0):
            self.emit(indent, f"elif {self.values.bool_(scope)}:")
            branches.append(self._branch(indent, scope, where, ex.num(1, 2), deleted if everywhere else None))
        if (self.budget > 1 and ex.chance(60)) or everywhere:
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

    def for_(self, indent: int, scope: Scope, where: Where, form: str) -> bool:
        ex, values = self.ex, self.values
        vec = values.variable(scope, "vec")
        counter = None  # an enumerate's count: a valid index of every vector
        if form == "for_vec" and vec is not None:
            target = ex.pick([n for n in where.assignable if kind_of(n) == "float"])
            iterable = ex.pick([vec, vec, values.vec_(scope, 1)])
            if ex.chance(30):
                counter = ex.pick(["t0", "t1"] if where.depth == 0 else ["t1", "t2"])
                target, iterable = f"{counter}, {target}", f"enumerate({iterable})"
        else:
            target = ex.pick(["t0", "t1"] if where.depth == 0 else ["t1", "t2"])
            bound = ex.pick([str(ex.num(0, 3)), f"np.minimum({values.int_(scope, 1)}, 4)",
                             f"min({values.int_(scope, 1)}, 3)"])
            if form == "for_index" and vec is not None:
                bound = ex.pick([f"len({vec})", f"{vec}.shape[0]"])
            iterable = ex.pick([f"ag.range({bound})", f"ag.range({bound})", f"range({bound})",
                                f"ag.range({ex.num(-1, 1)}, {bound})"])
            if form == "for_index" and vec is not None:
                counter = target
        self.emit(indent, f"for {target} in {iterable}:")
        body_scope = scope.copy()
        for name in target.split(", "):
            body_scope.bind(name)
        indices = values.indices
        if counter is not None:
            values.indices = Indices(indices.names + (counter,))
        body, _ = self.block(indent + 1, body_scope, where.nested(in_loop=True), ex.num(1, 3))
        values.indices = indices
        return self._loop_end(indent, scope, where, body)

    def while_(self, indent: int, scope: Scope, where: Where) -> bool:
        ex = self.ex
        guard = f"w{self.guards}"
        self.guards += 1
        self.emit(indent, f"{guard} = 0")
        self.budget += 1
        limit, cond = ex.num(1, 4), self.values.bool_(scope, 1, truthy=False)
        if ex.chance(25):  # the test is a break at the top of the body
            self.emit(indent, "while True:")
            self.emit(indent + 1, f"{guard} += 1")
            self.emit(indent + 1, f"if {guard} > {limit} or ({cond}):")
            self.emit(indent + 2, "break")
            self.budget += 3
        else:
            test = f"{guard} < {limit}"
            if ex.chance(80):
                test = ex.pick([f"{test} and ({cond})", f"({cond}) and {test}"])
            self.emit(indent, f"while {test}:")
            self.emit(indent + 1, f"{guard} += 1")
            self.budget += 1
        body, _ = self.block(indent + 1, scope.copy(), where.nested(in_loop=True), ex.num(1, 3))
        return self._loop_end(indent, scope, where, body)

    def _loop_end(self, indent: int, scope: Scope, where: Where, body: Scope) -> bool:
        """An optional `else:` block, then the join: the body may not have run."""
        if where.in_loop:
            self.values.nested_loop_names |= (body.maybe | body.defined) - scope.defined
        branches = [(body, False), (scope.copy(), False)]
        if self.budget > 1 and self.ex.chance(15):
            self.emit(indent, "else:")
            orelse = scope.copy()
            orelse.maybe |= body.maybe | body.defined
            branches.append(self.block(indent + 1, orelse, where.nested(), 1))
        self._merge(scope, branches)
        return False

    def search(self, indent: int, scope: Scope, where: Where) -> bool:
        """The search idiom: a loop whose tensor-dependent `if` binds a name and breaks, and whose
        `else:` binds it too, so the name is bound after the loop on every path:

            for t0 in ag.range(len(u)):
                if u[t0] < 0:
                    i = t0
                    break
            else:
                i = -1
        """
        ex, values = self.ex, self.values
        name = ex.pick([n for n in where.assignable if kind_of(n) in ("int", "float")])
        body = scope.copy()
        if ex.chance(60):
            target = ex.pick(["t0", "t1"] if where.depth == 0 else ["t1", "t2"])
            vec = values.variable(scope, "vec")
            bound = f"len({vec})" if vec is not None and ex.chance(60) else f"np.minimum({values.int_(scope, 1)}, 4)"
            self.emit(indent, f"for {target} in ag.range({bound}):")
            body.bind(target)
            indices = values.indices
            if vec is not None and bound.startswith("len("):
                values.indices = Indices(indices.names + (target,))
        else:
            guard, target, indices, vec = f"w{self.guards}", None, values.indices, None
            self.guards += 1
            self.emit(indent, f"{guard} = 0")
            self.emit(indent, f"while {guard} < {ex.num(1, 4)}:")
            self.emit(indent + 1, f"{guard} += 1")
            self.budget += 2
        inner = where.nested(in_loop=True)
        if ex.chance(40):
            self.block(indent + 1, body, inner, 1)
        test = values.bool_(body)
        if target is not None and target in values.indices.names and ex.chance(70):
            test = f"{vec}[{target}] {ex.pick(['<', '>', '=='])} {values.float_(body, 1)}"
        self.emit(indent + 1, f"if {test}:")
        found = target if target is not None and kind_of(name) == "int" and ex.chance(60) else None
        self.emit(indent + 2, f"{name} = {found or self._copied(values.of_kind(kind_of(name), body))}")
        self.emit(indent + 2, "break")
        if ex.chance(30):  # what the loop does when it goes on
            self.block(indent + 1, body, inner, 1)
        values.indices = indices
        self.emit(indent, "else:")
        self.emit(indent + 1, f"{name} = {self._copied(values.of_kind(kind_of(name), scope))}")
        if where.in_loop:
            values.nested_loop_names |= (body.maybe | body.defined) - scope.defined
        self._merge(scope, [(body, False), (scope.copy(), False)])
        scope.bind(name)
        return False

    def guarded(self, indent: int, scope: Scope, where: Where) -> bool:
        """Statements inside `with contextlib.nullcontext():` or `try: ... finally:`, whose staged
        control flow traces as in TensorFlow (the block runs while tracing). The finally block reads
        only what was bound before the try: the body may have left early."""
        ex = self.ex
        if ex.chance(50):
            self.emit(indent, "with contextlib.nullcontext():")
            body, leaves = self.block(indent + 1, scope.copy(), where.nested(), ex.num(1, 3))
            scope.defined, scope.maybe = body.defined, body.maybe | scope.maybe
            return leaves
        self.emit(indent, "try:")
        body, leaves = self.block(indent + 1, scope.copy(), where.nested(), ex.num(1, 3))
        self.emit(indent, "finally:")
        before = scope.copy()
        # an assignment, never `x -= ...`: after a `return x` in the body, that would change the
        # returned 0-d array in place (an alias changed in place is a documented difference)
        self.emit(indent + 1, self._assign(before, where))
        scope.defined = body.defined | before.defined
        scope.maybe |= body.maybe | before.maybe
        return leaves

    def helper(self, indent: int, scope: Scope) -> None:
        """A local function of a float `p` with its own control flow, reading
        the enclosing function's variables (bound when it is defined)."""
        name = f"h{self.helpers}"
        self.helpers += 1
        self.emit(indent, f"def {name}(p):")
        if self.ex.chance(25):  # a docstring the converted code must keep as written
            self.emit(indent + 1, multiline_literal(self.ex, []))
        inner = Scope(set(scope.defined) | {"p"}, set(scope.maybe) | {"p"})
        where = Where(depth=1, in_helper=True, assignable=_HELPER_LOCALS)
        _, leaves = self.block(indent + 1, inner, where, self.ex.num(1, 4))
        if not leaves:
            self.emit(indent + 1, self.return_(inner, where))
        scope.helpers.append(name)
