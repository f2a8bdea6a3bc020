"""Typed random expressions over NumPy values, for the staged program generator.

Every variable name holds one kind of value for the whole program, so that a
staged loop's variables keep their dtype and shape: `i j k n` hold int64
scalars (0-d arrays, NumPy or Python ints), `x y z` float64 scalars, and
`u v w` float64 vectors, all as long as the program's vector inputs. No
expression changes a vector's length, divides by a value that may be zero,
or multiplies two variables that may grow, so values stay small and the only
exceptions are the interesting ones (an index past an empty vector's end, an
unbound name).
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.autograph.program_expressions import Expressions, Scope

__all__ = ["INT_NAMES", "FLOAT_NAMES", "VEC_NAMES", "kind_of", "Indices", "StagedExpressions"]

INT_NAMES = ("i", "j", "k", "n")
FLOAT_NAMES = ("x", "y", "z")
VEC_NAMES = ("u", "v", "w")
_FLOATS = ("0.5", "1.5", "-2.0", "0.25", "3.0", "0.0")


def kind_of(name: str) -> str:
    """The kind a variable name always holds (names are typed by pool)."""
    if name in FLOAT_NAMES or name in ("p", "q", "r"):  # a helper's parameter and locals
        return "float"
    if name in VEC_NAMES:
        return "vec"
    return "int"


@dataclass(frozen=True)
class Indices:
    """Int names that are valid indices of every vector here (the target of a
    `for t in ag.range(len(u))` being run), so `u[t]` never fails."""

    names: tuple[str, ...] = ()


class StagedExpressions:
    """Draws typed expressions; `ex` supplies the hypothesis choices."""

    def __init__(self, ex: Expressions) -> None:
        self.ex = ex
        self.indices = Indices()
        # names first bound in a loop nested in another loop: never read where they may be
        # unbound (the graph does not know whether the inner loop ran; docs/differences.md)
        self.nested_loop_names: set[str] = set()

    def variable(self, scope: Scope, kind: str) -> str | None:
        """A readable name of `kind`; rarely one bound only on some paths."""
        ex = self.ex
        names = sorted(n for n in scope.defined if kind_of(n) == kind)
        risky = sorted(n for n in scope.maybe - scope.defined - self.nested_loop_names
                       if kind_of(n) == kind)
        if risky and ex.risky and ex.chance(3):
            return ex.pick(risky)
        return ex.pick(names) if names else None

    def atom(self, text: str) -> str:
        """`text` safe as an operand without parentheses."""
        plain = text.lstrip("-")
        return text if plain.isidentifier() or plain.replace(".", "").isdigit() else f"({text})"

    # -- ints --
    def int_(self, scope: Scope, depth: int = 2) -> str:
        ex = self.ex
        name = self.variable(scope, "int")
        leaf = name if name is not None and ex.chance(70) else str(ex.num(0, 6) - 2)
        if depth <= 0 or not ex.chance(50):
            return leaf
        d = depth - 1
        form = ex.weighted([("add", 6), ("sub", 4), ("mul", 2), ("floordiv", 2), ("mod", 2),
                            ("neg", 1), ("minmax", 2), ("npminmax", 2), ("ifexp", 3),
                            ("abs", 1), ("len", 1), ("count", 1)])
        a = self.atom(self.int_(scope, d))
        if form == "add":
            return f"{self.int_(scope, d)} + {a}"
        if form == "sub":
            return f"{self.int_(scope, d)} - {a}"
        if form == "mul":
            return f"({a} * {ex.num(0, 3)}) % 7"  # never grows: Python ints do not wrap, int64 does
        if form == "floordiv":
            return f"{a} // {ex.pick(['2', '3', '-2'])}"
        if form == "mod":
            return f"{a} % {ex.pick(['2', '3', '5'])}"
        if form == "neg":
            return f"-{a}"
        if form == "minmax":
            return f"{ex.pick(['min', 'max'])}({self.int_(scope, d)}, {self.int_(scope, d)})"
        if form == "npminmax":
            return f"np.{ex.pick(['minimum', 'maximum'])}({self.int_(scope, d)}, {self.int_(scope, d)})"
        if form == "ifexp":
            return f"({self.int_(scope, d)} if {self.bool_(scope, d)} else {self.int_(scope, d)})"
        if form == "abs":
            return f"{ex.pick(['abs', 'np.abs'])}({self.int_(scope, d)})"
        if form == "len" and (vec := self.variable(scope, "vec")):
            return ex.pick([f"len({vec})", f"{vec}.shape[0]"])
        if form == "count" and self.variable(scope, "vec"):
            return f"np.sum({self.atom(self.vec_(scope, d))} > {self.float_(scope, 0)})"
        return leaf

    # -- floats --
    def float_(self, scope: Scope, depth: int = 2) -> str:
        ex = self.ex
        name = self.variable(scope, "float")
        leaf = name if name is not None and ex.chance(70) else ex.pick(_FLOATS)
        if depth <= 0 or not ex.chance(50):
            return leaf
        d = depth - 1
        form = ex.weighted([("add", 5), ("mul", 3), ("div", 2), ("mix", 3), ("ifexp", 2),
                            ("tanh", 2), ("abs", 1), ("sum", 3), ("index", 3), ("minmax", 2),
                            ("float", 1), ("andor", 1), ("helper", 2), ("where", 1)])
        if form == "add":
            return f"{self.float_(scope, d)} {ex.pick(['+', '-'])} {self.atom(leaf)}"
        if form == "mul":
            return f"{self.atom(self.float_(scope, d))} * {ex.pick(['0.5', '2.0', '-1.0'])}"
        if form == "div":
            return f"{self.atom(self.float_(scope, d))} / (np.abs({self.float_(scope, d)}) + 1.0)"
        if form == "mix":
            return f"{self.atom(leaf)} + {self.atom(self.int_(scope, d))}"
        if form == "ifexp":
            return f"({self.float_(scope, d)} if {self.bool_(scope, d)} else {leaf})"
        if form == "tanh":
            return f"np.{ex.pick(['tanh', 'sin', 'cos'])}({self.float_(scope, d)})"
        if form == "abs":
            return f"{ex.pick(['abs', 'np.abs'])}({self.float_(scope, d)})"
        if form == "sum":
            return f"np.{ex.pick(['sum', 'sum', 'mean', 'prod'])}({self.vec_(scope, d)})"
        if form == "index":
            return self._index(scope, d) or leaf
        if form == "minmax":
            return f"np.{ex.pick(['minimum', 'maximum'])}({self.float_(scope, d)}, {leaf})"
        if form == "float":
            return f"float({self.int_(scope, d)})"
        if form == "andor":
            return f"({self.float_(scope, d)} {ex.pick(['and', 'or'])} {self.atom(leaf)})"
        if form == "helper" and scope.helpers:
            return f"{ex.pick(scope.helpers)}({self.float_(scope, d)})"
        if form == "where":
            return f"np.where({self.bool_(scope, d)}, {self.float_(scope, d)}, {leaf})"
        return leaf

    def _index(self, scope: Scope, depth: int) -> str | None:
        """An element of a vector: at a safe index, or at 0 / -1 (an IndexError
        on an empty vector, in both the original and the graph)."""
        vec = self.variable(scope, "vec")
        if vec is None:
            return None
        safe = [t for t in self.indices.names if t in scope.defined]
        if safe and self.ex.chance(70):
            return f"{vec}[{self.ex.pick(safe)}]"
        return f"{vec}[{self.ex.pick(['0', '-1'])}]"

    # -- vectors --
    def vec_(self, scope: Scope, depth: int = 2) -> str:
        ex = self.ex
        name = self.variable(scope, "vec")
        if name is None:
            return "np.zeros(0)"  # unreachable: a program always has a vector input
        if depth <= 0 or not ex.chance(50):
            return name
        d = depth - 1
        form = ex.weighted([("add", 4), ("scale", 3), ("tanh", 3), ("max", 2), ("where", 2),
                            ("abs", 1), ("cumsum", 1), ("zeros", 1)])
        if form == "add":
            other = self.vec_(scope, d) if ex.chance(50) else self.float_(scope, d)
            return f"{self.vec_(scope, d)} {ex.pick(['+', '-'])} {self.atom(other)}"
        if form == "scale":
            return f"{self.atom(self.vec_(scope, d))} * {ex.pick(['0.5', '2.0', '-1.0'])}"
        if form == "tanh":
            return f"np.tanh({self.vec_(scope, d)})"
        if form == "max":
            return f"np.{ex.pick(['maximum', 'minimum'])}({self.vec_(scope, d)}, {self.float_(scope, d)})"
        if form == "where":
            return f"np.where({name} > {self.float_(scope, d)}, {self.vec_(scope, d)}, {name})"
        if form == "abs":
            return f"np.abs({self.vec_(scope, d)})"
        if form == "cumsum":
            return f"np.cumsum({self.vec_(scope, d)})"
        return f"np.zeros_like({name})"

    # -- conditions --
    def bool_(self, scope: Scope, depth: int = 2, truthy: bool = True) -> str:
        """A condition; a bare int or float name only where `truthy` (not as an
        operand of and/or, whose staged form needs both sides of one dtype)."""
        ex = self.ex
        d = max(depth - 1, 0)
        form = ex.weighted([("cmp", 8), ("chain", 2), ("not", 2), ("andor", 4), ("any", 2),
                            ("truthy", 1 * truthy)])
        if form == "cmp" or depth <= 0:
            op = ex.pick(["<", ">", "==", "!=", "<=", ">="])
            left = self.int_(scope, d) if ex.chance(50) else self.float_(scope, d)
            right = self.int_(scope, d) if ex.chance(60) else self.float_(scope, d)
            return f"{left} {op} {right}"
        if form == "chain":  # the middle a name: a computed one is not split (differences.md)
            ops = [ex.pick(["<", "<=", "!="]) for _ in range(2)]
            middle = self.variable(scope, ex.pick(["int", "float"])) or ex.pick(_FLOATS)
            return (f"{self.atom(self.int_(scope, d))} {ops[0]} {middle} "
                    f"{ops[1]} {self.atom(self.int_(scope, d))}")
        if form == "not":
            return f"not ({self.bool_(scope, d)})"
        if form == "andor":
            left, right = self.bool_(scope, d, False), self.bool_(scope, d, False)
            return f"({left}) {ex.pick(['and', 'or'])} ({right})"
        if form == "any":
            return f"np.{ex.pick(['any', 'all'])}({self.vec_(scope, d)} > {self.float_(scope, d)})"
        name = self.variable(scope, ex.pick(["int", "float"]))
        return name if name is not None else self.bool_(scope, 0)

    def of_kind(self, kind: str, scope: Scope, depth: int = 2) -> str:
        if kind == "float":
            return self.float_(scope, depth)
        if kind == "vec":
            return self.vec_(scope, depth)
        return self.int_(scope, depth)
