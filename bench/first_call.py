"""Benchmark 3: first-call latency of ag.function against tf.function.

One repetition = `ag.function(f)(*args)` on a function object fresh from a
new copy of bench/corpus/staged.py: conversion, tracing, graph compilation
and the first run, with no cache able to answer. TensorFlow does the same
with bench/corpus/staged_tf.py.
"""

from __future__ import annotations

from bench.agreement import check_agrees
from bench.built import blame_unbuilt
from bench.corpus import handwritten, load_fresh
from bench.corpus.inputs import staged_cases
from bench.harness import Config, Result, Stats, attempt, time_fresh
from bench.peer_process import Peers
from bench.report import Section, cell, ratio, ratio_cell

__all__ = ["TITLE", "PEER", "measure_ours", "run"]

TITLE = "3. First-call latency: convert + trace + compile + first run"
PEER = "bench.peers.tf_first_call"
TF_TARGET = 20.0


def _first_call(name: str, args: tuple, config: Config) -> Stats:
    import autograph as ag

    expected = getattr(handwritten, name)(*args)
    check_agrees(ag.function(getattr(load_fresh("staged"), name))(*args), expected,
                 f"ag.function({name})")
    return time_fresh(
        lambda: getattr(load_fresh("staged"), name),
        lambda func: ag.function(func)(*args),
        config,
    )


def measure_ours(config: Config) -> dict[str, Result]:
    return {
        label: blame_unbuilt(attempt(lambda name=name, args=args: _first_call(name, args, config)))
        for label, name, args in staged_cases(config.quick)
    }


def run(config: Config, peers: Peers | None = None) -> Section:
    ours = measure_ours(config)
    peer = (peers or Peers(config)).output(PEER)
    section = Section(
        TITLE,
        "`ag.function(f)(*args)` vs `tf.function(f)(*args)` on fresh function objects "
        "every repetition (bench/corpus/staged.py and staged_tf.py, same inputs).",
        ["case", "ours", "TensorFlow", "TF / ours (target ≥ 20x)"],
    )
    for label, _, _ in staged_cases(config.quick):
        tf = peer.result(label)
        section.rows.append([label, cell(ours[label]), cell(tf),
                             ratio_cell(ratio(tf, ours[label]), lambda r: r >= TF_TARGET)])
        section.note_missing("ours", label, ours[label])
        section.note_missing("TensorFlow", label, tf)
    section.peer_versions = peer.versions
    return section
