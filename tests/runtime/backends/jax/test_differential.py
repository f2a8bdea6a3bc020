"""Differential tests: the XLA backend computes what the NumPy backend computes.

The staged fuzzer's random programs (tests/autograph/staged_programs.py) run
as `ag.function(f)` and as `ag.function(f, jit_compile=True)` on the same
inputs. Both must return the same values, print the same text, or raise the
same exception; the XLA backend may also refuse a program with a
StagingError that names a line of `f` (what XLA cannot express: a shape that
depends on the data, a loop variable whose shape changes).

Ints and bools must be equal exactly. Floats are compared to a tolerance:
XLA evaluates transcendental functions with its own approximations (float64
`tanh`, `exp`, ... differ from NumPy's by an ulp or so) and may reassociate
reductions, and a loop compounds such differences; rtol 1e-9 for float64
(a few hundred ulp), 1e-4 for float32.
"""

from __future__ import annotations

import collections
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, note, reject, seed, settings
from hypothesis import strategies as st

pytest.importorskip("jax")

import autograph as ag  # noqa: E402
from runtime.ir.errors import AutographError  # noqa: E402
from tests.autograph.differential import _same_error, load, unload  # noqa: E402
from tests.autograph.fuzz_record import FailureLog, example_database, rerun_hint, run_seed  # noqa: E402
from tests.autograph.staged_differential import TimedOut, names_user_line, run_quietly  # noqa: E402
from tests.autograph.staged_programs import staged_inputs, staged_programs  # noqa: E402

_PROGRAMS = 60  # each compiles with XLA (tens of ms per graph): the file takes about 10 s here
TOLERANCE = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4, np.dtype(np.float16): 1e-2}


def close_values(a: object, b: object) -> bool:
    """Equal structure and dtypes; ints and bools equal, floats within TOLERANCE (NaN equals NaN)."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(close_values(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is b
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind in "fc":
        rtol = TOLERANCE.get(np.dtype(x.real.dtype), 1e-9)
        return bool(np.allclose(x, y, rtol=rtol, atol=rtol * 1e-3, equal_nan=True))
    return bool(np.array_equal(x, y))


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)")


def same_printed(a: str, b: str) -> bool:
    """The same text, its numbers within float32's tolerance: XLA's last digits may differ,
    and NumPy pads the columns of an array to its longest number."""
    if a == b:
        return True
    if "".join(_NUMBER.sub("#", a).split()) != "".join(_NUMBER.sub("#", b).split()):
        return False
    x = np.array([float(n) for n in _NUMBER.findall(a)])
    y = np.array([float(n) for n in _NUMBER.findall(b)])
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=TOLERANCE[np.dtype(np.float32)], atol=0, equal_nan=True))


def compare(source: str, inputs: list[tuple], directory, tally: collections.Counter | None = None) -> str | None:
    """How the two backends disagree on `f` of `source`, or None; `tally` counts how calls ended."""
    original = load(source, directory)
    start = source.find("\ndef f(") + 1
    first = source.count("\n", 0, start) + 1
    lines = (original.__code__.co_filename, first, source.count("\n") + 1)
    try:
        numpy_f, jax_f = ag.function(original), ag.function(original, jit_compile=True)
        for args in inputs:
            try:
                expected = run_quietly(numpy_f, args, timeout=5.0)
            except TimedOut:
                reject()
            if expected.error is not None and issubclass(expected.error, AutographError):
                reject()  # refused by the NumPy backend too: nothing to compare
            for call in ("first", "second"):
                actual = run_quietly(jax_f, args, timeout=60.0)
                problem = _judge(expected, actual, lines)
                if tally is not None and call == "first":
                    tally[_ending(expected, actual)] += 1
                if problem:
                    return (f"{problem} at the {call} call of f{tuple(args)!r}\n{source}\n"
                            f"  numpy: {expected.describe()}\n  jax:   {actual.describe()}")
    finally:
        unload(original)
    return None


def _ending(expected, actual) -> str:
    if actual.error is None:
        return "matched"
    if expected.error is not None:
        return f"raised {expected.error.__name__} both ways"
    reason = re.sub(r"\S*\.py:\d+", "<line>", actual.message.splitlines()[0])
    return f"refused by XLA: {reason[:110]}"


def _judge(expected, actual, lines) -> str | None:
    if actual.error is not None and issubclass(actual.error, AutographError) and expected.error is None:
        return None if names_user_line(actual.message, *lines) else "a refusal that names no line of f"
    if actual.error is not None or expected.error is not None:
        if actual.error is None or expected.error is None:
            return "one backend raised, the other returned"
        if not _same_error(expected.error, actual.error):
            return "different exceptions"
        return None
    if not close_values(expected.value, actual.value):
        return "different return values"
    if not same_printed(expected.stdout, actual.stdout):
        return "different printed output"
    return None


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("jax_programs")


@settings(max_examples=_PROGRAMS, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
          phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_fuzzed_programs_agree_with_the_numpy_backend(data, directory):
    program = data.draw(staged_programs(), label="program")
    inputs = data.draw(st.lists(staged_inputs(program.kinds), min_size=1, max_size=2), label="inputs")
    problem = compare(program.source, inputs, directory)
    assert problem is None, problem


_SEED = run_seed()
_LONG_RUN_PROGRAMS = 2_000


@pytest.fixture(scope="module")
def tally(pytestconfig):
    """How the long run's calls ended (matched, refused by XLA with which reason), printed at its end."""
    counts: collections.Counter = collections.Counter()
    yield counts
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\nXLA backend differential ({rerun_hint(_SEED)}): {sum(counts.values())} calls ended so:")
        for ending, count in counts.most_common(20):
            print(f"{count:8d}  {ending}")


@pytest.mark.slow
@seed(_SEED)
@settings(max_examples=_LONG_RUN_PROGRAMS, deadline=None, database=example_database(),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
          print_blob=True)
@given(data=st.data())
def test_fuzzed_programs_agree_with_the_numpy_backend_long_run(data, directory, tally):
    """`make fuzz`: many fresh programs on both backends; failures are kept in .fuzz/seed-<seed>/."""
    note(rerun_hint(_SEED))
    program = data.draw(staged_programs(), label="program")
    inputs = data.draw(st.lists(staged_inputs(program.kinds), min_size=1, max_size=3), label="inputs")
    problem = compare(program.source, inputs, directory, tally)
    if problem is not None:
        FailureLog(_SEED).record(f"XLA backend differential: {problem}", program.source)
    assert problem is None, problem


def test_close_values_tolerates_only_floats():
    assert close_values(np.float64(1.0), np.float64(1.0 + 1e-12))
    assert not close_values(np.float64(1.0), np.float64(1.0 + 1e-6))
    assert not close_values(np.int64(1), np.int64(2))
    assert not close_values(np.float32(1.0), np.float64(1.0))
    assert close_values((np.float64(np.nan),), (np.float64(np.nan),))


def test_same_printed_compares_numbers_to_a_tolerance_and_the_rest_exactly():
    assert same_printed("[0.3716172 0.2329026]\n", "[0.37161723 0.2329027 ]\n")
    assert not same_printed("step 1 0.5\n", "step 2 0.5\n")
    assert not same_printed("fizz\n", "buzz\n")
    assert not same_printed("0.5\n", "0.6\n")
