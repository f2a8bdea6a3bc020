"""Differential fuzzing: converted functions behave exactly like the originals.

Each example generates a random program (tests/autograph/program_generator.py),
loads it as a module, converts `f` with `ag.convert` and calls both versions on
the same generated arguments, comparing return values, printed output and
exception types. `make test` runs 2,000 programs with a fixed seed; `make fuzz`
runs 50,000 fresh ones from a seed it prints, and keeps what fails in `.fuzz/`
(tests/autograph/fuzz_record.py). A failure message holds the whole program,
every input, both outcomes and the program as a `REGRESSIONS` entry.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, Phase, given, note, reject, seed, settings
from hypothesis import strategies as st

import autograph as ag
from tests.autograph.differential import TimedOut, compare, load, report, run, unload
from tests.autograph.flat_chains import all_chains_flat
from tests.autograph.fuzz_record import FailureLog, example_database, rerun_hint, run_seed
from tests.autograph.program_arguments import arguments
from tests.autograph.program_generator import PRELUDE, programs
from tests.autograph.regressions.jumps import JUMPS
from tests.autograph.regressions.names import NAMES

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


def check(source: str, inputs: list[tuple], directory, convert=ag.convert,
          record: Callable[[str, str], None] | None = None) -> None:
    """Fail with the program, the inputs and both outcomes on any difference;
    `record(message, source)` keeps the report before the test fails."""
    original = load(source, directory)
    try:
        failure = _difference(original, inputs, convert)
    finally:
        unload(original)
    if failure is not None:
        message = report(failure, source, inputs, source.find("\ndef f(") + 1)
        if record is not None:
            record(message, source)
        raise AssertionError(message)


def _difference(original: Callable, inputs: list[tuple], convert) -> str | None:
    """What went wrong with both outcomes, or None when the conversion behaves."""
    try:
        converted = convert(original)
    except Exception as error:  # noqa: BLE001 - a failed conversion is the finding
        return f"conversion failed: {error!r}"
    for args in inputs:
        try:
            expected = run(original, args, timeout=_ORIGINAL_SECONDS)
        except TimedOut:
            reject()
        try:
            actual = run(converted, args, timeout=_CONVERTED_SECONDS)
        except TimedOut as error:
            return (f"the converted {_call(args)} {error}\n"
                    f"  original:  {expected.describe()} in {expected.seconds:.3f} s")
        difference = compare(expected, actual)
        if difference:
            return (f"{difference} for {_call(args)}\n"
                    f"  original:  {expected.describe()}\n"
                    f"  converted: {actual.describe()}")
    return None


def _call(args: tuple) -> str:
    return f"f({', '.join(map(repr, args))})"


def _fuzz(data, directory, convert=ag.convert, record=None) -> None:
    program = data.draw(programs(skip=KNOWN_BROKEN), label="program")
    inputs = data.draw(st.lists(arguments(program.kinds), min_size=1, max_size=3), label="args")
    check(program.source, inputs, directory, convert, record)


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


@settings(max_examples=_QUICK_PROGRAMS // 4, deadline=None, derandomize=True, database=None,
          suppress_health_check=_RELAXED, phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_converted_programs_match_originals_with_every_chain_flat(data, directory):
    """The flat `if_chain`, `if_exp_chain` and `and_`/`or_` calls, which only long chains get,
    for every chain of two or more arms in the drawn programs."""
    with all_chains_flat():
        _fuzz(data, directory)


_SEED = run_seed()


@pytest.fixture(scope="module")
def failure_log(pytestconfig) -> FailureLog:
    """The long run's failure log; announces the seed before the run starts."""
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\ndifferential {rerun_hint(_SEED)}; failures are kept in {FailureLog(_SEED).folder}")
    return FailureLog(_SEED)


@pytest.mark.slow
@seed(_SEED)
@settings(max_examples=_SLOW_PROGRAMS, deadline=None, database=example_database(),
          suppress_health_check=_RELAXED, print_blob=True)
@given(data=st.data())
def test_converted_programs_match_originals_long_run(data, directory, failure_log):
    note(rerun_hint(_SEED))
    _fuzz(data, directory, record=failure_log.record)


# Minimal programs from mismatches the fuzzer found, kept as regressions: a new one goes
# into the module of tests/autograph/regressions/ that holds its concept.
REGRESSIONS: list[tuple[str, list[tuple]]] = NAMES + JUMPS


@pytest.mark.parametrize(("body", "inputs"), REGRESSIONS)
def test_regression(body, inputs, directory):
    check(f"{PRELUDE}\n\n{textwrap.dedent(body)}", inputs, directory)
