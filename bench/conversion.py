"""Benchmark 1: conversion time per function, against TensorFlow and the floor.

Each repetition executes the corpus (bench/corpus/scalar_code.py, array_code.py and
solver_code.py) anew, so every function is a new object with a new code object and
no conversion cache answers. The floor is `ast.parse` + `compile` of each function's own source: the least a
source-to-source converter must do. TensorFlow's `tf.autograph.to_graph`
converts the same functions in its own process.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

from bench.corpus import load_numerics
from bench.harness import Config, Missing, Result, Stats, attempt, time_call, time_named_fresh
from bench.peer_process import PeerOutput, Peers
from bench.report import Section, cell, ratio, ratio_cell

__all__ = ["TITLE", "PEER", "corpus_names", "measure_floor", "measure_ours", "run"]

TITLE = "1. Conversion time per function"
PEER = "bench.peers.tf_conversion"
TOTAL = "corpus, mean per function"
TF_TARGET = 30.0
FLOOR_TARGET = 8.0


def corpus_names() -> list[str]:
    return list(load_numerics().CASES)


def measure_ours(config: Config) -> tuple[dict[str, Result], Result]:
    """`ag.convert` on each corpus function, fresh functions every repetition."""

    import autograph as ag

    def convert(func: object) -> object:
        return ag.convert(func)

    return time_named_fresh(load_numerics, corpus_names(), convert, config)


def measure_floor(config: Config) -> tuple[dict[str, Result], Result]:
    """`compile(ast.parse(source))` of each function's source text."""
    module = load_numerics()
    sources = {}
    for name in corpus_names():
        func = getattr(module, name)
        sources[name] = (textwrap.dedent(inspect.getsource(func)), inspect.getsourcefile(func))

    def parse_and_compile(name: str) -> None:
        source, filename = sources[name]
        compile(ast.parse(source, filename), filename, "exec")

    per_name: dict[str, Result] = {
        name: time_call(lambda name=name: parse_and_compile(name), config) for name in sources
    }

    def whole_corpus() -> None:
        for name in sources:
            parse_and_compile(name)

    total = time_call(whole_corpus, config)
    scale = 1 / len(sources)
    return per_name, Stats(total.median * scale, total.min * scale, total.max * scale, total.reps)


def _row(label: str, ours: Result, tf: Result, floor: Result) -> list[str]:
    return [
        label,
        cell(ours),
        cell(tf),
        cell(floor),
        ratio_cell(ratio(tf, ours), lambda r: r >= TF_TARGET),
        ratio_cell(ratio(ours, floor), lambda r: r <= FLOOR_TARGET),
    ]


def run(config: Config, peers: Peers | None = None) -> Section:
    names = corpus_names()
    ours_each, ours_total = _split(attempt(lambda: measure_ours(config)))
    floor_each, floor_total = measure_floor(config)
    peer = (peers or Peers(config)).output(PEER)
    module = load_numerics()
    section = Section(
        TITLE,
        f"`ag.convert` vs `tf.autograph.to_graph` on the {len(names)} functions of "
        "bench/corpus/scalar_code.py, array_code.py and solver_code.py (5–80 lines each), fresh function "
        "objects every repetition; floor: `compile(ast.parse(source))` of the same source.",
        ["function (lines)", "ours", "TensorFlow", "floor", "TF / ours (target ≥ 30x)",
         "ours / floor (target ≤ 8x)"],
    )
    section.rows.append(_row(f"{TOTAL} ({len(names)} functions)", ours_total,
                             peer.result(TOTAL), floor_total))
    section.rows.insert(0, _common_row(names, ours_each, peer, floor_each))
    for name in names:
        lines = len(inspect.getsource(getattr(module, name)).splitlines())
        ours, tf = ours_each[name], peer.result(name)
        section.rows.append(_row(f"{name} ({lines})", ours, tf, floor_each[name]))
        section.note_missing("ours", name, ours)
        section.note_missing("TensorFlow", name, tf)
    section.note_missing("TensorFlow", TOTAL, peer.result(TOTAL))
    section.peer_versions = peer.versions
    return section


def _common_row(
    names: list[str], ours_each: dict, peer: PeerOutput, floor_each: dict
) -> list[str]:
    """Mean of per-function medians over the functions every side converted.

    The target is judged here: both sides over the same functions.
    """
    sums = {"ours": 0.0, "tf": 0.0, "floor": 0.0}
    common = 0
    for name in names:
        ours, tf, floor = ours_each[name], peer.result(name), floor_each[name]
        if all(isinstance(r, Stats) for r in (ours, tf, floor)):
            common += 1
            sums["ours"] += ours.median
            sums["tf"] += tf.median
            sums["floor"] += floor.median
    label = f"**mean of medians, the {common} functions all sides converted**"
    if common == 0:
        missing = Missing("—")
        return _row(label, missing, missing, missing)
    ours, tf, floor = (Stats(v / common, v / common, v / common, 1) for v in sums.values())
    row = _row(label, ours, tf, floor)
    return [row[0]] + [c.split(" [")[0] for c in row[1:4]] + row[4:]


def _split(measured: object) -> tuple[dict[str, Result], Result]:
    """A failed measurement becomes the same Missing in every cell."""
    if isinstance(measured, Missing):
        return dict.fromkeys(corpus_names(), measured), measured
    return measured
