"""Benchmark 5: steady-state staged execution of small-op loops.

Each Function is traced once and warmed up; then its compiled graph runs
against `tf.function` on the same inputs, and against the limit: the same
loop hand-written in Python over NumPy (bench/corpus/handwritten.py), with the
dtypes the graph computes in. Where a faster hand-written loop exists that
computes in other types (fizzbuzz over Python ints instead of int64), a second
table shows it beside ours, with no target: it is not the same computation.
"""

from __future__ import annotations

from bench.agreement import check_agrees
from bench.built import blame_unbuilt
from bench.corpus import handwritten, load_fresh
from bench.corpus.inputs import staged_cases
from bench.harness import Config, Result, Stats, attempt, time_call
from bench.peer_process import Peers
from bench.report import Section, cell, ratio, ratio_cell

__all__ = ["TITLE", "PEER", "measure_ours", "run"]

TITLE = "5. Steady-state staged execution of small-op loops"
PEER = "bench.peers.tf_staged_loops"
TF_TARGET = 3.0
LIMIT_TARGET = 1.5
# case name -> a hand-written loop over other types than the graph's (no target)
OTHER_TYPES = {"fizzbuzz_score": (handwritten.fizzbuzz_score_python_ints, "Python ints")}


def _steady(name: str, args: tuple, config: Config) -> Stats:
    import autograph as ag

    func = ag.function(getattr(load_fresh("staged"), name))
    check_agrees(func(*args), getattr(handwritten, name)(*args), f"ag.function({name})")
    return time_call(lambda: func(*args), config)


def measure_ours(config: Config) -> dict[str, tuple[Result, Stats, Stats | None]]:
    """label -> (ours, limit, limit over other types or None) seconds per call."""
    results = {}
    for label, name, args in staged_cases(config.quick):
        limit_func = getattr(handwritten, name)
        limit = time_call(lambda f=limit_func, a=args: f(*a), config)
        other = None
        if name in OTHER_TYPES:
            other_func = OTHER_TYPES[name][0]
            other = time_call(lambda f=other_func, a=args: f(*a), config)
        ours = blame_unbuilt(attempt(lambda name=name, args=args: _steady(name, args, config)))
        results[label] = (ours, limit, other)
    return results


def run(config: Config, peers: Peers | None = None) -> Section:
    ours_all = measure_ours(config)
    peer = (peers or Peers(config)).output(PEER)
    section = Section(
        TITLE,
        "Traced once, then called again and again: `ag.function` (NumPy inputs) vs "
        "`tf.function` (tf.constant inputs) vs the loop hand-written in Python/NumPy.",
        ["case", "ours", "TensorFlow", "limit (hand-written NumPy)",
         "TF / ours (target ≥ 3x)", "ours / limit (target ≤ 1.5x)"],
    )
    other_rows = section.add_table(
        ["case", "ours", "hand-written over other types", "ours / that (no target)"]
    )
    names = {label: name for label, name, _ in staged_cases(config.quick)}
    for label, (ours, limit, other) in ours_all.items():
        if other is not None:
            kind = OTHER_TYPES[names[label]][1]
            other_rows.append([f"{label}, {kind}", cell(ours), cell(other),
                               ratio_cell(ratio(ours, other))])
        tf = peer.result(label)
        section.rows.append([
            label, cell(ours), cell(tf), cell(limit),
            ratio_cell(ratio(tf, ours), lambda r: r >= TF_TARGET),
            ratio_cell(ratio(ours, limit), lambda r: r <= LIMIT_TARGET),
        ])
        section.note_missing("ours", label, ours)
        section.note_missing("TensorFlow", label, tf)
    section.peer_versions = peer.versions
    return section
