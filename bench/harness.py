"""Timing: repetitions of perf_counter_ns, reported as median, min and max.

Warm-up calls are discarded; each repetition runs enough inner iterations to
last at least `min_rep_seconds`, so microsecond timings are not lost in the
clock's resolution. Only the standard library is used: the TensorFlow side
imports this module too, so both sides measure the same way.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Config",
    "Missing",
    "Stats",
    "Result",
    "attempt",
    "time_call",
    "time_calls",
    "time_fresh",
    "time_named_fresh",
    "result_to_json",
    "result_from_json",
]

NOT_BUILT_ERRORS = (NotImplementedError, ImportError, AttributeError)


@dataclass(frozen=True)
class Config:
    """How hard to measure: the full run, or the one-shot smoke test."""

    quick: bool = False
    reps: int = 7
    warmup: int = 2
    min_rep_seconds: float = 0.05

    @classmethod
    def full(cls) -> Config:
        return cls()

    @classmethod
    def smoke(cls) -> Config:
        return cls(quick=True, reps=1, warmup=0, min_rep_seconds=0.0)


@dataclass(frozen=True)
class Stats:
    """Seconds per call over the repetitions."""

    median: float
    min: float
    max: float
    reps: int

    @classmethod
    def of(cls, samples: list[float]) -> Stats:
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))


@dataclass(frozen=True)
class Missing:
    """Why a cell has no number: "not built", a failure, or a side not run."""

    reason: str
    detail: str = ""


Result = Stats | Missing


def attempt(measure: Callable[[], Any], not_built: tuple = NOT_BUILT_ERRORS) -> Any:
    """Run `measure`; a part that is not built yet gives Missing("not built").

    NotImplementedError, ImportError and AttributeError are what the
    placeholders of unbuilt parts raise; any other error is reported as a
    failure with its message, never as a number. The TensorFlow side passes
    `not_built=()`: there every error is a failure.
    """
    try:
        return measure()
    except not_built as exc:
        return Missing("not built", f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - every failure becomes a table cell
        return Missing("failed", f"{type(exc).__name__}: {exc}")


def _inner_count(fn: Callable[[], Any], config: Config) -> int:
    """Iterations per repetition so that one repetition lasts min_rep_seconds."""
    target_ns = config.min_rep_seconds * 1e9
    inner = 1
    while True:
        start = time.perf_counter_ns()
        for _ in range(inner):
            fn()
        elapsed = time.perf_counter_ns() - start
        if elapsed >= target_ns or inner >= 1 << 24:
            return inner
        inner = max(inner * 2, int(inner * target_ns / max(elapsed, 1) * 1.1))


def time_call(fn: Callable[[], Any], config: Config) -> Stats:
    """Steady-state seconds per call of `fn()`."""
    (stats,) = time_calls([fn], config)
    return stats


def time_calls(fns: list[Callable[[], Any]], config: Config) -> list[Stats]:
    """Steady-state seconds per call of each of `fns`, their repetitions interleaved.

    Repetition k of every function runs before repetition k + 1 of any, so a
    change in the machine's load during the measurement reaches all of them
    alike and the ratios between them hold steadier than with one `time_call`
    after another.
    """
    for fn in fns:
        for _ in range(config.warmup):
            fn()
    inners = [_inner_count(fn, config) if config.min_rep_seconds > 0 else 1 for fn in fns]
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(config.reps):
        for fn, inner, taken in zip(fns, inners, samples):
            start = time.perf_counter_ns()
            for _ in range(inner):
                fn()
            taken.append((time.perf_counter_ns() - start) / inner / 1e9)
    return [Stats.of(taken) for taken in samples]


def time_fresh(setup: Callable[[], Any], run: Callable[[Any], Any], config: Config) -> Stats:
    """Seconds of one `run(setup())`, with a new untimed `setup()` each time.

    For costs that happen once per object (conversion, a first call): each
    repetition gets fresh objects, so no cache can answer.
    """
    samples = []
    for rep in range(config.warmup + config.reps):
        state = setup()
        start = time.perf_counter_ns()
        run(state)
        elapsed = (time.perf_counter_ns() - start) / 1e9
        if rep >= config.warmup:
            samples.append(elapsed)
    return Stats.of(samples)


def result_to_json(result: Result) -> dict:
    if isinstance(result, Missing):
        return {"missing": result.reason, "detail": result.detail}
    return {"median": result.median, "min": result.min, "max": result.max, "reps": result.reps}


def result_from_json(data: dict) -> Result:
    if "missing" in data:
        return Missing(data["missing"], data.get("detail", ""))
    return Stats(data["median"], data["min"], data["max"], data["reps"])


def time_named_fresh(
    load: Callable[[], Any],
    names: list[str],
    run: Callable[[Any], Any],
    config: Config,
    not_built: tuple = NOT_BUILT_ERRORS,
) -> tuple[dict[str, Result], Result]:
    """Per-name seconds of `run(getattr(load(), name))`, fresh objects each repetition.

    Returns each name's Stats (or Missing, when `run` raised on it) and the
    mean per name over the names that succeeded, per repetition (callers
    say which names failed).
    """
    samples: dict[str, list[float]] = {name: [] for name in names}
    failures: dict[str, Missing] = {}
    means = []
    for rep in range(config.warmup + config.reps):
        module = load()
        total, counted = 0.0, 0
        for name in names:
            if name in failures:
                continue
            target = getattr(module, name)
            start = time.perf_counter_ns()
            outcome = attempt(lambda target=target: run(target), not_built)
            elapsed = (time.perf_counter_ns() - start) / 1e9
            if isinstance(outcome, Missing):
                failures[name] = outcome
                continue
            total += elapsed
            counted += 1
            if rep >= config.warmup:
                samples[name].append(elapsed)
        if rep >= config.warmup and counted:
            means.append(total / counted)
    per_name: dict[str, Result] = {
        name: failures.get(name) or Stats.of(samples[name]) for name in names
    }
    if means:
        return per_name, Stats.of(means)
    reasons = sorted({m.reason for m in failures.values()})
    return per_name, Missing(reasons[0] if len(reasons) == 1 else "failed")
