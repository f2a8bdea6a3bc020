"""The timing harness: statistics, the "not built" rule, fresh-object timing."""

import pytest

from bench.harness import (
    Config,
    Missing,
    Stats,
    attempt,
    result_from_json,
    result_to_json,
    time_call,
    time_calls,
    time_fresh,
    time_named_fresh,
)

TINY = Config(reps=3, warmup=1, min_rep_seconds=0.0001)


def test_stats_are_median_min_max():
    stats = Stats.of([3.0, 1.0, 2.0, 10.0, 4.0])
    assert (stats.median, stats.min, stats.max, stats.reps) == (3.0, 1.0, 10.0, 5)


def test_time_call_discards_warmups_and_repeats():
    calls = []
    stats = time_call(lambda: calls.append(1), TINY)
    assert stats.reps == 3
    assert 0 < stats.min <= stats.median <= stats.max
    assert len(calls) > TINY.reps + TINY.warmup


def test_time_calls_interleaves_the_repetitions_of_its_functions():
    order = []
    config = Config(reps=3, warmup=1, min_rep_seconds=0.0)
    first, second = time_calls([lambda: order.append("a"), lambda: order.append("b")], config)
    assert first.reps == second.reps == 3
    assert order == ["a", "b"] + ["a", "b"] * 3  # warm-ups, then one repetition of each in turn


def test_full_config_measures_at_least_seven_repetitions():
    assert Config.full().reps >= 7
    assert Config.full().warmup >= 1


@pytest.mark.parametrize("error", [NotImplementedError("x"), ImportError("x"), AttributeError("x")])
def test_placeholders_are_not_built(error):
    def measure():
        raise error

    result = attempt(measure)
    assert result == Missing("not built", f"{type(error).__name__}: x")


def test_other_errors_are_failures_never_numbers():
    def measure():
        raise ValueError("wrong")

    assert attempt(measure) == Missing("failed", "ValueError: wrong")


def test_peer_side_counts_every_error_as_failure():
    def measure():
        raise NotImplementedError("for/else")

    assert attempt(measure, ()).reason == "failed"


def test_time_fresh_sets_up_each_repetition():
    made = []
    stats = time_fresh(lambda: made.append(object()) or made[-1], lambda obj: None, TINY)
    assert len(made) == TINY.warmup + TINY.reps
    assert stats.reps == TINY.reps


class _Module:
    @staticmethod
    def good():
        return 1

    @staticmethod
    def unbuilt():
        raise NotImplementedError("not yet")


def test_named_fresh_keeps_going_past_a_failure():
    per_name, mean = time_named_fresh(_Module, ["good", "unbuilt"], lambda f: f(), TINY)
    assert isinstance(per_name["good"], Stats)
    assert per_name["unbuilt"].reason == "not built"
    assert isinstance(mean, Stats)


def test_named_fresh_with_nothing_built_has_no_mean():
    per_name, mean = time_named_fresh(_Module, ["unbuilt"], lambda f: f(), TINY)
    assert mean == Missing("not built")


@pytest.mark.parametrize("result", [Stats(1e-6, 5e-7, 2e-6, 7), Missing("failed", "boom")])
def test_results_survive_the_json_protocol(result):
    assert result_from_json(result_to_json(result)) == result
