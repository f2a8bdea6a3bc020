"""Typed random expressions for the program generator.

Every expression is generated for one type (int, float, bool, list) so that
programs mostly run past their first line instead of dying of a TypeError;
the exceptions they do raise are the interesting ones (ZeroDivisionError,
IndexError, unbound names). Growth is bounded: no variable times variable,
no list doubled, so values stay small enough to print.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

__all__ = ["INT_NAMES", "FLOAT_NAMES", "LIST_NAMES", "HELPER_LOCALS", "GLOBAL_NAME",
           "ATTRIBUTE_NAME", "CLOSURE_NAMES", "Scope", "Expressions"]

INT_NAMES = ("i", "j", "k", "n")
FLOAT_NAMES = ("x", "y", "z")
LIST_NAMES = ("xs", "ys", "zs")
HELPER_LOCALS = ("q", "r")
GLOBAL_NAME = "g"  # a module global, after `global g`
ATTRIBUTE_NAME = "b.v"  # the attribute of a `Box`, one more int variable
CLOSURE_NAMES = ("c0", "c1")  # each holds a `lambda:` returning an int, called as `c0()`
_HELPER_PARAM = "p"


def kind_of(name: str) -> str:
    """The type a variable name always holds (names are typed by pool)."""
    if name in FLOAT_NAMES:
        return "float"
    if name in LIST_NAMES:
        return "list"
    if name in CLOSURE_NAMES:
        return "closure"
    return "int"


@dataclass
class Scope:
    """What a function may read at one point: names bound on every path
    (`defined`), names bound on some path (`maybe`), helpers callable."""

    defined: set[str] = field(default_factory=set)
    maybe: set[str] = field(default_factory=set)
    helpers: list[str] = field(default_factory=list)

    def copy(self) -> Scope:
        return Scope(set(self.defined), set(self.maybe), list(self.helpers))

    def bind(self, name: str) -> None:
        self.defined.add(name)
        self.maybe.add(name)

    def unbind(self, name: str) -> None:
        self.defined.discard(name)

    @staticmethod
    def join(before: Scope, branches: list[Scope]) -> Scope:
        """The scope after control merges: defined on all paths, maybe on any."""
        joined = before.copy()
        if branches:
            joined.defined = set.intersection(*(b.defined for b in branches))
        for branch in branches:
            joined.maybe |= branch.maybe | branch.defined
        return joined


class Expressions:
    """Draws typed expressions; `draw` is hypothesis's draw function."""

    def __init__(self, draw) -> None:
        self.draw = draw
        self.tags = 0
        self.risky = True  # whether a name bound only on some paths may be read

    # -- drawing primitives (each shrinks toward the simplest choice) --
    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def num(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def chance(self, percent: int) -> bool:
        return self.num(0, 99) >= 100 - percent

    def weighted(self, pairs):
        """One of the keys of `pairs` [(key, weight)], the first when shrunk."""
        roll = self.num(0, sum(w for _, w in pairs) - 1)
        for key, weight in pairs:
            if roll < weight:
                return key
            roll -= weight
        raise AssertionError("unreachable")

    def tag(self, prefix: str) -> str:
        self.tags += 1
        return f"'{prefix}{self.tags}'"

    # -- names --
    def variable(self, scope: Scope, kind: str) -> str | None:
        """A readable name of `kind`; rarely one bound only on some paths."""
        names = sorted(n for n in scope.defined if kind_of(n) == kind)
        risky = sorted(n for n in scope.maybe - scope.defined if kind_of(n) == kind)
        if risky and self.risky and self.chance(4):
            return self.pick(risky)
        if names:
            return self.pick(names)
        return None

    # -- typed expressions --
    def int_(self, scope: Scope, depth: int = 2) -> str:
        leaf = self._int_leaf(scope)
        if depth <= 0 or not self.chance(55):
            return leaf
        d = depth - 1
        form = self.weighted([
            ("add", 6), ("sub", 4), ("mul", 3), ("floordiv", 2), ("mod", 2), ("neg", 1),
            ("minmax", 2), ("ifexp", 3), ("andor", 2), ("log", 3), ("helper", 8),
            ("index", 2), ("len", 2), ("sum", 1), ("int", 1), ("zero", 1), ("comp", 1),
            ("abs", 1), ("closure", 3), ("genexp", 1), ("recursion", 1),
        ])
        if form == "add":
            return f"{self.int_(scope, d)} + {self._int_atom(scope, d)}"
        if form == "sub":
            return f"{self.int_(scope, d)} - {self._int_atom(scope, d)}"
        if form == "mul":
            return f"{self._int_atom(scope, d)} * {self.num(0, 3)}"
        if form == "floordiv":
            return f"{self._int_atom(scope, d)} // {self._int_atom(scope, d)}"
        if form == "mod":
            return f"{self._int_atom(scope, d)} % {self._int_atom(scope, d)}"
        if form == "neg":
            return f"-{self._int_atom(scope, d)}"
        if form == "minmax":
            return f"{self.pick(['min', 'max'])}({self.int_(scope, d)}, {self.int_(scope, d)})"
        if form == "ifexp":
            return f"({self.int_(scope, d)} if {self.bool_(scope, d)} else {self.int_(scope, d)})"
        if form == "andor":
            op = self.pick(["and", "or"])
            return f"({self._int_atom(scope, d)} {op} {self._int_atom(scope, d)})"
        if form == "log":
            return f"log({self.tag('t')}, {self.int_(scope, d)})"
        if form == "helper" and scope.helpers:
            return f"{self.pick(scope.helpers)}({self.int_(scope, d)})"
        if form == "index":
            return f"{self.list_(scope, d)}[{self._int_atom(scope, d)}]"
        if form == "len":
            return f"len({self.list_(scope, d)})"
        if form == "sum":
            return f"sum({self.list_(scope, d)})"
        if form == "int":
            return f"int({self.float_(scope, d)})"
        if form == "zero":
            return f"{self._int_atom(scope, d)} // 0"
        if form == "comp":
            return f"len([v for v in {self.list_(scope, d)} if {self._comp_test()}])"
        if form == "abs":
            return f"abs({self.int_(scope, d)})"
        if form == "genexp":
            return f"sum(v * {self._int_atom(scope, 0)} for v in {self.list_(scope, d)})"
        if form == "recursion":
            return f"tri({self.int_(scope, d)})"
        if form == "closure" and (closure := self.variable(scope, "closure")):
            return f"{closure}()"
        return leaf

    def _int_leaf(self, scope: Scope) -> str:
        name = self.variable(scope, "int")
        if name is not None and self.chance(70):
            return name
        return str(self.num(0, 9) - 2)

    def _int_atom(self, scope: Scope, depth: int) -> str:
        """An int expression safe to use as an operand without parentheses."""
        text = self.int_(scope, depth)
        plain = text.lstrip("-").replace(".", "_")  # a name, or the attribute b.v
        return text if plain.isidentifier() or text.isdigit() else f"({text})"

    def _comp_test(self) -> str:
        return self.pick(["v > 0", "v % 2 == 0", "v != 1", "v < 3"])

    def float_(self, scope: Scope, depth: int = 2) -> str:
        name = self.variable(scope, "float")
        leaf = name if name is not None and self.chance(70) else self.pick(
            ["0.5", "1.5", "-2.0", "0.25", "3.0"])
        if depth <= 0 or not self.chance(50):
            return leaf
        d = depth - 1
        form = self.weighted([("add", 4), ("mul", 3), ("div", 2), ("mix", 3), ("ifexp", 2),
                              ("log", 2), ("abs", 1), ("float", 1)])
        if form == "add":
            return f"{self.float_(scope, d)} {self.pick(['+', '-'])} {leaf}"
        if form == "mul":
            return f"({self.float_(scope, d)}) * {self.pick(['0.5', '2.0', '-1.0'])}"
        if form == "div":
            return f"({self.float_(scope, d)}) / ({self.int_(scope, d)})"
        if form == "mix":
            return f"{leaf} + {self._int_atom(scope, d)}"
        if form == "ifexp":
            return f"({self.float_(scope, d)} if {self.bool_(scope, d)} else {leaf})"
        if form == "log":
            return f"log({self.tag('t')}, {self.float_(scope, d)})"
        if form == "abs":
            return f"abs({self.float_(scope, d)})"
        return f"float({self.int_(scope, d)})"

    def bool_(self, scope: Scope, depth: int = 2) -> str:
        form = self.weighted([("cmp", 8), ("chain", 3), ("not", 2), ("andor", 4), ("log", 3),
                              ("in", 1), ("truthy", 2), ("walrus", 0)])
        d = max(depth - 1, 0)
        if form == "cmp" or depth <= 0:
            op = self.pick(["<", ">", "==", "!=", "<=", ">="])
            left = self.int_(scope, d) if self.chance(80) else self.float_(scope, d)
            return f"{left} {op} {self.int_(scope, d)}"
        if form == "chain":
            ops = [self.pick(["<", "<=", "!="]) for _ in range(2)]
            return (f"{self._int_atom(scope, d)} {ops[0]} {self._int_atom(scope, d)} "
                    f"{ops[1]} {self._int_atom(scope, d)}")
        if form == "not":
            return f"not ({self.bool_(scope, d)})"
        if form == "andor":
            op = self.pick(["and", "or"])
            return f"({self.bool_(scope, d)}) {op} ({self.bool_(scope, d)})"
        if form == "log":
            return f"log({self.tag('c')}, {self.bool_(scope, d)})"
        if form == "in":
            return f"{self._int_atom(scope, d)} in {self.list_(scope, d)}"
        return self._truthy(scope, d)

    def _truthy(self, scope: Scope, depth: int) -> str:
        name = self.variable(scope, self.pick(["int", "list", "float"]))
        return name if name is not None else self.bool_(scope, 0)

    def list_(self, scope: Scope, depth: int = 1) -> str:
        name = self.variable(scope, "list")
        if name is not None and self.chance(75):
            return name
        d = max(depth - 1, 0)
        form = self.weighted([("literal", 3), ("range", 2), ("comp", 2), ("concat", 2),
                              ("slice", 1), ("sorted", 1)])
        if form == "literal" or name is None and form in ("concat", "slice", "sorted"):
            items = [self.int_(scope, d) for _ in range(self.num(0, 3))]
            return f"[{', '.join(items)}]"
        if form == "range":
            return f"list(range({self.num(0, 4)}))"
        if form == "comp":  # the element may read a variable of the function, a loop's too
            source = name if name is not None else f"range({self.num(1, 4)})"
            factor = self.pick([str(self.num(1, 3)), self._int_atom(scope, 0)])
            return f"[v * {factor} for v in {source} if {self._comp_test()}]"
        if form == "concat":
            return f"{name} + [{self.int_(scope, d)}]"
        if form == "slice":
            return f"{name}[:{self.num(0, 3)}]"
        return f"sorted({name})"

    def of_kind(self, kind: str, scope: Scope, depth: int = 2) -> str:
        if kind == "float":
            return self.float_(scope, depth)
        if kind == "list":
            return self.list_(scope, depth)
        return self.int_(scope, depth)
