"""Differential fuzzing: converted functions behave exactly like the originals.

Each example generates a random program (tests/autograph/program_generator.py),
loads it as a module, converts `f` with `ag.convert` and calls both versions on
the same generated arguments, comparing return values, printed output and
exception types. `make test` runs 2,000 programs with a fixed seed; `make fuzz`
runs 50,000 fresh ones.
"""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, Phase, given, reject, settings
from hypothesis import strategies as st

import autograph as ag
from tests.autograph.differential import TimedOut, compare, load, run, unload
from tests.autograph.program_generator import PRELUDE, arguments, programs

# Constructs whose mismatches are open (see tests/autograph/mismatches/README.md):
# the fuzz runs leave them out until the converter handles them.
KNOWN_BROKEN: frozenset[str] = frozenset()
_QUICK_PROGRAMS = 2000
_SLOW_PROGRAMS = 50_000
_ORIGINAL_SECONDS = 1.0  # a program slower than this is discarded, not compared
_CONVERTED_SECONDS = 20.0
_RELAXED = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("programs")


def check(source: str, inputs: list[tuple], directory, convert=ag.convert) -> None:
    """Fail with the program, the arguments and both outcomes on any difference."""
    original = load(source, directory)
    try:
        try:
            converted = convert(original)
        except Exception as error:
            raise AssertionError(f"conversion failed: {error!r}\n{source}") from error
        for args in inputs:
            try:
                expected = run(original, args, timeout=_ORIGINAL_SECONDS)
            except TimedOut:
                reject()
            try:
                actual = run(converted, args, timeout=_CONVERTED_SECONDS)
            except TimedOut as error:
                raise AssertionError(f"the converted f{args!r} {error}\n{source}") from None
            difference = compare(expected, actual)
            if difference:
                raise AssertionError(
                    f"{difference} for f{args!r}\n"
                    f"  original:  {expected.describe()}\n"
                    f"  converted: {actual.describe()}\n{source}"
                )
    finally:
        unload(original)


def _fuzz(data, directory, convert=ag.convert) -> None:
    program = data.draw(programs(skip=KNOWN_BROKEN), label="program")
    inputs = data.draw(st.lists(arguments(program.kinds), min_size=1, max_size=3), label="args")
    check(program.source, inputs, directory, convert)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=_RELAXED)
@given(data=st.data())
def test_generated_programs_run_unconverted(data, directory):
    """The harness itself: programs compile and terminate, and a function
    compared with itself shows no difference."""
    _fuzz(data, directory, convert=lambda func: func)


@settings(max_examples=_QUICK_PROGRAMS, deadline=None, derandomize=True, database=None,
          suppress_health_check=_RELAXED, phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_converted_programs_match_originals(data, directory):
    _fuzz(data, directory)


@pytest.mark.slow
@settings(max_examples=_SLOW_PROGRAMS, deadline=None, database=None,
          suppress_health_check=_RELAXED)
@given(data=st.data())
def test_converted_programs_match_originals_long_run(data, directory):
    _fuzz(data, directory)


# Minimal programs from mismatches the fuzzer found, kept as regressions.
REGRESSIONS: list[tuple[str, list[tuple]]] = [
    # A name bound only in a branch not taken: reading it must raise
    # UnboundLocalError, not compute with the Undefined placeholder.
    (
        """
        def f(c):
            if c:
                i = 1
            return i + 1
        """,
        [(0,), (1,)],
    ),
    (
        """
        def f(c):
            if c:
                i = 1
            return [i]
        """,
        [(0,), (1,)],
    ),
    # A deleted name read inside a loop: NameError (free variable) is accepted
    # for UnboundLocalError.
    (
        """
        def f(i, j):
            del j
            while i < 1:
                i += j
            return i
        """,
        [(0, 1), (5, 1)],
    ),
    # A deleted name read through a closure: NameError in the original,
    # UnboundLocalError once converted; the allowance covers both directions.
    (
        """
        def f(i):
            def h():
                return i
            del i
            for i in (h(),):
                pass
            return i
        """,
        [(1,)],
    ),
    # A loop whose else block always raises makes the code after it
    # unreachable; converting the if/return there must still work.
    (
        """
        def f(y):
            for _ in range(2):
                pass
            else:
                raise ValueError("always")
            if y:
                return y
            return 0
        """,
        [(0,), (1,)],
    ),
    # A nonlocal name only assigned (never read) in a branch or loop of a
    # local function: the branch must rebind the enclosing function's name.
    (
        """
        def f(i):
            def h0():
                nonlocal i
                if i > 0:
                    i = 7
                for _ in range(2):
                    i = i * 2 if i > 100 else 8
            h0()
            return i
        """,
        [(4,), (-1,)],
    ),
    # A possibly unbound name copied inside a loop body or a branch (unbound
    # on the first iteration, or after a loop that ran zero times) must raise
    # UnboundLocalError, not copy the Undefined placeholder.
    (
        """
        def f(c):
            for i in range(2):
                if i > c:
                    n = 1
                j = n
            return j
        """,
        [(0,), (-1,)],
    ),
    (
        """
        def f(c):
            if c < 1:
                for _ in range(c):
                    i = 1
                k = [i]
                return k
            return 0
        """,
        [(0,), (-1,), (2,)],
    ),
    # The same read in the lazy operand of a loop test's `and`.
    (
        """
        def f(x):
            i = -2
            del i
            w0 = 0
            while w0 < 1 and (0.5 == i):
                w0 += 1
                i = -2
            return -2
        """,
        [(0.0,)],
    ),
    # A break in the else block of a loop inside an if inside another loop
    # belongs to the outer loop (its conversion once failed with a KeyError).
    (
        """
        def f(n):
            for _ in range(n):
                if n:
                    for _ in range(n):
                        pass
                    else:
                        break
            return 0
        """,
        [(0,), (2,)],
    ),
]


@pytest.mark.parametrize(("body", "inputs"), REGRESSIONS)
def test_regression(body, inputs, directory):
    check(f"{PRELUDE}\n\n{textwrap.dedent(body)}", inputs, directory)
