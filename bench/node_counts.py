"""Benchmark 6: graph sizes for the tf.function guide's examples.

`len(concrete_function.graph.as_graph_def().node)` for the same examples
(bench/corpus/guide.py and guide_tf.py). A count, not a time: it is measured
once. The issue sets no target; fewer nodes mean less to run per call.
"""

from __future__ import annotations

from bench.built import blame_unbuilt
from bench.corpus import load_fresh
from bench.harness import Config, Missing, attempt
from bench.peer_process import Peers
from bench.report import Section, cell, ratio, ratio_cell

__all__ = ["TITLE", "PEER", "measure_ours", "run"]

TITLE = "6. Graph node counts for the guide's examples"
PEER = "bench.peers.tf_node_counts"


def measure_ours() -> dict[str, int | Missing]:
    cases = attempt(lambda: load_fresh("guide").cases())
    if isinstance(cases, Missing):
        return {"(all examples)": cases}
    return {
        label: blame_unbuilt(attempt(lambda build=build: len(build().as_graph_def().node)))
        for label, build in cases
    }


def run(config: Config, peers: Peers | None = None) -> Section:
    ours = measure_ours()
    peer = (peers or Peers(config)).output(PEER)
    labels = list(ours) if "(all examples)" not in ours else sorted(peer.rows) or list(ours)
    section = Section(
        TITLE,
        "`len(f.get_concrete_function(...).graph.as_graph_def().node)` for the guide's "
        "examples written for each library (no target set; shown for comparison).",
        ["example", "ours (nodes)", "TensorFlow (nodes)", "ours / TF"],
    )
    for label in labels:
        mine = ours.get(label, ours.get("(all examples)"))
        tf = peer.count(label)
        section.rows.append([label, cell(mine), cell(tf), ratio_cell(ratio(mine, tf))])
        section.note_missing("ours", label, mine)
        section.note_missing("TensorFlow", label, tf)
    section.peer_versions = peer.versions
    return section
