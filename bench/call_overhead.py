"""Benchmark 4: the cost of calling a Function whose trace is cached.

`x + 1` on 4 floats does almost no work, so the time is the call path:
argument flattening, the cache-key lookup, running the compiled graph and
returning NumPy values. TensorFlow is called with a tf.constant, its native
input; the limit is NumPy's `x + 1` itself.
"""

from __future__ import annotations

from bench.agreement import check_agrees
from bench.built import blame_unbuilt
from bench.corpus import handwritten, load_fresh
from bench.corpus.inputs import four_floats
from bench.harness import Config, Result, Stats, attempt, time_call
from bench.peer_process import Peers
from bench.report import Section, cell, fmt_seconds, ratio, ratio_cell

__all__ = ["TITLE", "PEER", "CASE", "measure_ours", "run"]

TITLE = "4. Cache-hit call overhead"
PEER = "bench.peers.tf_call_overhead"
CASE = "x + 1 on 4 floats, trace cached"
ABSOLUTE_TARGET_SECONDS = 10e-6
TF_TARGET = 5.0


def _cached_call(config: Config) -> Stats:
    import autograph as ag

    x = four_floats()
    add_one = ag.function(load_fresh("staged").add_one)
    check_agrees(add_one(x), handwritten.add_one(x), "ag.function(add_one)")
    return time_call(lambda: add_one(x), config)


def measure_ours(config: Config) -> tuple[Result, Stats]:
    """(ours, the NumPy limit) seconds per call."""
    x = four_floats()
    limit = time_call(lambda: handwritten.add_one(x), config)
    return blame_unbuilt(attempt(lambda: _cached_call(config))), limit


def run(config: Config, peers: Peers | None = None) -> Section:
    ours, limit = measure_ours(config)
    peer = (peers or Peers(config)).output(PEER)
    tf = peer.result(CASE)
    absolute = "—"
    if isinstance(ours, Stats):
        verdict = "met" if ours.median < ABSOLUTE_TARGET_SECONDS else "not met"
        absolute = f"{fmt_seconds(ours.median)} ({verdict})"
    section = Section(
        TITLE,
        "A Function called again with an input of the same dtype and shape: "
        "`ag.function` (NumPy input) vs `tf.function` (tf.constant input); "
        "limit: NumPy `x + 1`.",
        ["case", "ours", "TensorFlow", "limit (NumPy)", "ours (target < 10 µs)",
         "TF / ours (target ≥ 5x)", "ours / limit"],
        peer_versions=peer.versions,
        rows=[[CASE, cell(ours), cell(tf), cell(limit), absolute,
               ratio_cell(ratio(tf, ours), lambda r: r >= TF_TARGET),
               ratio_cell(ratio(ours, limit))]],
    )
    section.note_missing("ours", CASE, ours)
    section.note_missing("TensorFlow", CASE, tf)
    return section
