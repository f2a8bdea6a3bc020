"""Benchmark 2: what conversion costs when the converted code runs plain Python.

Loop-heavy scalar code from the corpus runs original, converted by us
(`ag.convert`) and converted by TensorFlow (`tf.autograph.to_graph`), all
called with Python ints. Outside a trace `ag.convert(f)` runs f's own code
(autograph/python_mode.py). Beside ours, the converted code itself with bare
operators (bench/bare_operators.py): what the generated code's shape costs
before any operator does its work, which is what a trace pays.
Then the cost of `converted_call` on a user function that is already converted.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from bench.bare_operators import bare_copy
from bench.corpus import load_numerics
from bench.corpus.inputs import python_mode_args
from bench.harness import Config, Result, Stats, attempt, time_call, time_calls
from bench.peer_process import Peers
from bench.report import Section, cell, fmt_seconds, ratio, ratio_cell

__all__ = ["TITLE", "PEER", "CALL_KEY", "converted_call_function", "measure_ours", "run"]

TITLE = "2. Python-mode overhead of converted code"
PEER = "bench.peers.tf_python_mode"
CALL_KEY = "converted_call(affine, 3.0)"
RATIO_TARGET = 1.2  # outside a trace ag.convert(f) runs f's own code (autograph/python_mode.py)
CALL_TARGET_SECONDS = 2e-6


def converted_call_function() -> Callable[..., Any]:
    """`autograph.converted_call.converted_call`: AttributeError/ImportError if not built."""
    return importlib.import_module("autograph.converted_call").converted_call


def _measure_converted(func: Callable, args: tuple, config: Config) -> tuple[Stats, Stats, Stats]:
    """(original, converted, converted with bare operators), their repetitions interleaved
    (see time_calls)."""
    import autograph as ag

    converted = ag.convert(func)
    bare = bare_copy(converted)
    expected = func(*args)
    for side, got in (("converted code", converted(*args)), ("bare operators", bare(*args))):
        if got != expected:
            raise AssertionError(f"{side} returned {got!r}, the original {expected!r}")
    original, ours, shape = time_calls([lambda: func(*args), lambda: converted(*args), lambda: bare(*args)], config)
    return original, ours, shape


def _measure_converted_call(func: Callable, config: Config) -> tuple[Stats, Stats]:
    """(a plain call, converted_call), their repetitions interleaved."""
    converted_call = converted_call_function()
    expected, got = func(3.0), converted_call(func, 3.0)
    if got != expected:
        raise AssertionError(f"converted_call returned {got!r}, the original {expected!r}")
    plain, ours = time_calls([lambda: func(3.0), lambda: converted_call(func, 3.0)], config)
    return plain, ours


def _paired(measured: object, original: Callable[[], Stats], sides: int) -> tuple[Result, ...]:
    """A failed or unbuilt measurement makes each of its `sides` Missing; the original is then
    timed on its own."""
    if isinstance(measured, tuple):
        return measured
    return (original(),) + (measured,) * sides


def measure_ours(config: Config) -> dict[str, tuple[Result, ...]]:
    """Seconds per call: (original, converted, bare operators) for each case, (plain call,
    converted_call) for converted_call."""
    module = load_numerics()
    results: dict[str, tuple[Result, ...]] = {}
    for name, args in python_mode_args(config.quick).items():
        func = getattr(module, name)
        measured = attempt(lambda func=func, args=args: _measure_converted(func, args, config))
        results[f"{name}{args}"] = _paired(
            measured, lambda func=func, args=args: time_call(lambda: func(*args), config), sides=2)
    affine = module.affine
    measured = attempt(lambda: _measure_converted_call(affine, config))
    results[CALL_KEY] = _paired(measured, lambda: time_call(lambda: affine(3.0), config), sides=1)
    return results


def run(config: Config, peers: Peers | None = None) -> Section:
    ours = measure_ours(config)
    peer = (peers or Peers(config)).output(PEER)
    section = Section(
        TITLE,
        "Corpus functions called with Python ints: original, converted by `ag.convert`, "
        "converted by `tf.autograph.to_graph` (same functions, same arguments). The original's "
        "and ours' repetitions alternate, so both see the same machine load. \"Shape\" is our "
        "converted code run with bare operators (bench/bare_operators.py), which do only what "
        "Python's own statements do: what the generated code costs before any operator works.",
        ["case", "original", "ours (converted)", "TensorFlow (converted)",
         f"ours / original (target ≤ {RATIO_TARGET}x)", "shape / original", "TF / original"],
    )
    for key, measured in ours.items():
        if key == CALL_KEY:
            continue
        original, converted, shape = measured
        tf = peer.result(key)
        section.rows.append([
            key, cell(original), cell(converted), cell(tf),
            ratio_cell(ratio(converted, original), lambda r: r <= RATIO_TARGET),
            ratio_cell(ratio(shape, original)),
            ratio_cell(ratio(tf, original)),
        ])
        section.note_missing("ours", key, converted)
        section.note_missing("TensorFlow", key, tf)
    plain, converted = ours[CALL_KEY]
    tf = peer.result(CALL_KEY)
    rows = section.add_table(["converted_call of an already-converted function", "plain call",
                              "ours", "TensorFlow", "ours (target < 2 µs)", "TF / ours"])
    met = "—"
    if isinstance(converted, Stats):
        verdict = "met" if converted.median < CALL_TARGET_SECONDS else "not met"
        met = f"{fmt_seconds(converted.median)} ({verdict})"
    rows.append([CALL_KEY, cell(plain), cell(converted), cell(tf), met,
                 ratio_cell(ratio(tf, converted))])
    section.note_missing("ours", CALL_KEY, converted)
    section.note_missing("TensorFlow", CALL_KEY, tf)
    section.peer_versions = peer.versions
    return section
