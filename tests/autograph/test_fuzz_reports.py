"""A differential fuzz failure tells everything needed to reproduce it.

The fuzz test is run here against a deliberately wrong "conversion", so it
must fail: the message must hold the shrunk program (the last one hypothesis
ran, not the first it found), every input and both outcomes, and the failure
log must keep the first and the smallest failing programs on disk.
"""

from __future__ import annotations

import ast
import inspect
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.autograph.fuzz_record import FailureLog
from tests.autograph.test_differential import _fuzz, check

_RELAXED = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def _wrong_on_while(func):
    """Returns a pair instead of the value whenever `f` has a while loop:
    a stand-in for a converter bug that only some programs trigger."""
    if "while " not in inspect.getsource(func):
        return func

    def wrong(*args):
        return ("wrong", func(*args))

    return wrong


def _program(message: str) -> str:
    return message.split("--- program ---\n")[1].split("\n--- as a regression")[0] + "\n"


def test_a_mismatch_reports_the_shrunk_program_inputs_and_outcomes(tmp_path):
    recorded: list[str] = []

    @settings(max_examples=300, derandomize=True, database=None, deadline=None,
              suppress_health_check=_RELAXED)
    @given(data=st.data())
    def search(data):
        _fuzz(data, tmp_path, convert=_wrong_on_while,
              record=lambda message, source: recorded.append(source))

    with pytest.raises(AssertionError) as failure:
        search()
    message = str(failure.value)
    assert message.startswith("different return values for f(")
    assert re.search(r"\n  original:  returned .*\n  converted: returned \('wrong', ", message)
    inputs = ast.literal_eval(re.search(r"\ninputs: (.*)\n", message).group(1))
    program = _program(message)
    assert program == recorded[-1]  # the example hypothesis replayed last: the shrunk one
    assert len(program) <= len(recorded[0])
    function = program[program.index("\ndef f(") + 1:]
    assert len(function.splitlines()) <= 12, function  # shrinking really happened
    # The regression entry in the message reproduces the failure as it stands.
    entry = message.split("(REGRESSIONS in test_differential.py) ---\n")[1]
    body, entry_inputs = ast.literal_eval(entry.strip().rstrip(","))
    assert entry_inputs == inputs
    with pytest.raises(AssertionError, match="different return values"):
        check(program[: program.index("\ndef f(") + 1] + inspect.cleandoc(body) + "\n",
              inputs, tmp_path, convert=_wrong_on_while)


def test_the_failure_log_keeps_the_first_and_the_smallest_failure(tmp_path):
    log = FailureLog(seed=7, directory=tmp_path)
    log.record("first message", "a" * 30)
    log.record("longer", "a" * 40)
    log.record("shorter", "a" * 10)
    first = (tmp_path / "seed-7" / "first-failure.txt").read_text()
    smallest = (tmp_path / "seed-7" / "smallest-failure.txt").read_text()
    assert first.startswith("fuzz seed 7, PYTHONHASHSEED=")
    assert "(rerun: make fuzz FUZZ_SEED=7)\n" in first
    assert "first message" in first
    assert "shorter" in smallest
