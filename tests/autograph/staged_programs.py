"""A hypothesis strategy for random programs over NumPy values, and their inputs.

The staged differential test (test_staged_differential.py) runs each program
as written and as `ag.function(f)` on the same NumPy values: 0-d int64 and
float64 arrays and float64 vectors of up to four items (empty ones too, so
loops run zero times). Control flow depends on those values, so the if
statements and loops the graph holds are staged. Every program terminates:
`for` loops run over vectors or ranges of at most four values, every `while`
has its own counter guard (`w0 < 3`). The body may live in a method or a
nested function that `f` calls (program_hosts.py).

    def f(u, n):
        x = np.sum(u)
        for t0 in ag.range(np.minimum(n, 4)):
            if x > t0:
                x -= 0.5
                continue
            ag.print('p1', x)
        return x
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from tests.autograph.program_expressions import Expressions, Scope
from tests.autograph.program_hosts import body_indent, pick_shape, program_source
from tests.autograph.program_statements import Where
from tests.autograph.staged_statements import LOCALS, RETURN_KINDS, StagedWriter

__all__ = ["PRELUDE", "StagedProgram", "staged_programs", "staged_inputs"]

PRELUDE = "import contextlib\n\nimport numpy as np\n\nimport autograph as ag\n"

_PARAMS = {"vec": ("u", "v", "w"), "int": ("n", "k"), "float": ("x", "y")}


@dataclass(frozen=True)
class StagedProgram:
    """A module's source whose function `f` takes NumPy values of `kinds`."""

    source: str
    kinds: tuple[str, ...]

    def __str__(self) -> str:
        return self.source


@st.composite
def staged_programs(draw) -> StagedProgram:
    """A module defining `f`, whose first parameter is a vector."""
    ex = Expressions(draw)
    kinds = ("vec",) + tuple(ex.pick(["int", "float", "vec"]) for _ in range(ex.num(0, 2)))
    params: list[str] = []
    for kind in kinds:
        params.append(next(n for n in _PARAMS[kind] if n not in params))
    writer = StagedWriter(ex, returns=ex.pick(RETURN_KINDS))
    shape = pick_shape(ex)
    indent = body_indent(shape)
    scope = Scope(set(params), set(params))
    if shape != "plain" and ex.chance(50):  # a literal that surely runs, in an indented def
        writer.text(indent, scope, Where(assignable=LOCALS), printed=True)
    if ex.chance(50):  # the vector the function's own from its first line: its items may be assigned
        writer.emit(indent, f"{params[0]} = np.copy({params[0]})")
    _, leaves = writer.block(indent, scope, Where(assignable=LOCALS), ex.num(2, 7))
    if not leaves:
        writer.lines.append("    " * indent + writer.return_(scope, Where()))
    return StagedProgram(program_source(PRELUDE, shape, params, "\n".join(writer.lines)), kinds)


_FLOATS = st.one_of(
    st.floats(-4, 4, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 2)),
    st.sampled_from([0.0, -0.0, 1.0, math.inf, -math.inf, math.nan]),
)


@st.composite
def staged_inputs(draw, kinds: tuple[str, ...]) -> tuple:
    """Arguments for a program whose parameters have `kinds`: every vector of
    one call has the same length."""
    length = draw(st.integers(0, 4))
    values = []
    for kind in kinds:
        if kind == "int":
            values.append(np.array(draw(st.integers(-3, 6)), dtype=np.int64))
        elif kind == "float":
            values.append(np.array(draw(_FLOATS), dtype=np.float64))
        else:
            values.append(np.array(draw(st.lists(_FLOATS, min_size=length, max_size=length)),
                                   dtype=np.float64))
    return tuple(values)
