"""A hypothesis strategy for random Python programs, as source text.

The differential test converts each program and checks that the converted
function behaves exactly like the original. Programs are text so a failing
case prints as readable Python. Every program terminates: `for` loops run
over short ranges, lists and tuples, every `while` has its own counter guard
(`w0 < 3`), and a list never changes length while a loop iterates over it.

The prelude gives programs a context manager that may swallow exceptions
(`Ctx`), a generator that prints when it is closed (`countdown`) and a
recursive function with a loop (`tri`).

Besides local names, a program may rebind the module's `g` (after `global
g`, which `f` follows by resetting it, so every call starts alike), a `Box`'s
attribute (`b.v` is one more int variable) and list items (`xs[0] = ...`).

The body may live in a method or a nested function that `f` calls
(program_hosts.py), and hold multi-line string literals (program_literals.py)
whose text must survive the converter re-indenting an indented def.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from tests.autograph.program_expressions import (
    ATTRIBUTE_NAME,
    FLOAT_NAMES,
    GLOBAL_NAME,
    INT_NAMES,
    LIST_NAMES,
    Expressions,
    Scope,
)
from tests.autograph.program_hosts import body_indent, pick_shape, program_source
from tests.autograph.program_statements import LOCALS, StatementWriter, Where

__all__ = ["PRELUDE", "FEATURES", "Program", "programs"]

PRELUDE = '''\
import contextlib


class MyError(ValueError):
    pass


class Box:
    def __init__(self, v):
        self.v = v


g = 0


def log(tag, value):
    print(tag, value)
    return value


class Ctx:
    """A context manager that prints, and swallows the body's exception when told to."""

    def __init__(self, value, swallow):
        self.value = value
        self.swallow = swallow

    def __enter__(self):
        print("enter", self.value)
        return self.value

    def __exit__(self, kind, error, trace):
        print("exit", self.value, kind is not None)
        return self.swallow


def countdown(n):
    try:
        while n > 0:
            yield n
            n -= 1
    finally:
        print("countdown done")


def tri(n):
    total = 0
    for i in range(min(n, 4)):
        total += tri(i) + 1
    return total
'''


@dataclass(frozen=True)
class Program:
    """A module's source whose function `f` takes arguments of `kinds`."""

    source: str
    kinds: tuple[str, ...]

    def __str__(self) -> str:
        return self.source


_PARAMS = {"int": INT_NAMES, "float": FLOAT_NAMES, "list": LIST_NAMES}


FEATURES = frozenset({"nonlocal", "loop_else_leaves", "unbound_reads_in_blocks",
                      "jump_in_loop_else", "global", "attributes", "subscripts", "try",
                      "del_in_blocks", "closures", "loops_in_try", "with",
                      "jump_in_finally", "multiline_text", "hosted"})


def _prologue(writer: StatementWriter, scope: Scope, indent: int) -> tuple[str, ...]:
    """Optional first statements of `f`: `global g` and a fresh `Box`; returns
    the int variables they add (`g`, `b.v`)."""
    ex, extra = writer.ex, ()
    if "global" not in writer.skip and ex.chance(20):
        writer.emit(indent, f"global {GLOBAL_NAME}")
        writer.emit(indent, f"{GLOBAL_NAME} = {ex.int_(scope, 0)}")
        extra += (GLOBAL_NAME,)
    if "attributes" not in writer.skip and ex.chance(20):
        writer.emit(indent, f"b = Box({ex.int_(scope, 0)})")
        extra += (ATTRIBUTE_NAME,)
    for name in extra:
        scope.bind(name)
    return extra


@st.composite
def programs(draw, skip: frozenset[str] = frozenset()) -> Program:
    """A module defining `f` (and the prelude `log`, `MyError`), without the
    optional constructs named in `skip` (a subset of FEATURES)."""
    assert skip <= FEATURES, f"unknown features {sorted(skip - FEATURES)}; see FEATURES"
    ex = Expressions(draw)
    kinds = tuple(ex.pick(["int", "float", "list"]) for _ in range(ex.num(1, 3)))
    params = []
    for kind in kinds:
        params.append(next(n for n in _PARAMS[kind] if n not in params))
    shape = pick_shape(ex, hosted="hosted" not in skip)
    indent = body_indent(shape)
    writer = StatementWriter(ex, skip)
    scope = Scope(set(params), set(params))
    where = Where(assignable=LOCALS + _prologue(writer, scope, indent))
    _, leaves = writer.block(indent, scope, where, ex.num(2, 8))
    if not leaves:
        writer.lines.append("    " * indent + writer.return_(scope, Where()))
    return Program(program_source(PRELUDE, shape, params, "\n".join(writer.lines)), kinds)

