"""One tiny measurement through a real benchmark, with no TensorFlow anywhere."""

from pathlib import Path

import autograph as ag
from bench import (
    call_overhead,
    conversion,
    first_call,
    node_counts,
    peer_process,
    python_mode,
    run,
    staged_loops,
    xla_backend,
)
from bench.built import blame_unbuilt
from bench.harness import Config, Missing

TINY = Config(quick=True, reps=1, warmup=0, min_rep_seconds=0.0)


def test_run_lists_every_benchmark():
    assert run.BENCHMARKS == [conversion, python_mode, first_call, call_overhead,
                              staged_loops, node_counts, xla_backend]


def test_missing_peers_env_is_said_not_measured(monkeypatch):
    monkeypatch.setattr(peer_process, "PEERS_PYTHON", Path("/nonexistent/python"))
    output = peer_process.run_peer("bench.peers.tf_call_overhead", TINY)
    assert output.result("anything").reason == "TensorFlow env missing"
    batch = peer_process.Peers(TINY, batch=[call_overhead.PEER])
    assert batch.output(call_overhead.PEER).result("x").reason == "TensorFlow env missing"
    section = call_overhead.run(TINY)
    row = section.rows[0]
    assert row[2] == "TensorFlow env missing"
    assert row[3].endswith("]")  # the NumPy limit was measured


def test_unbuilt_converter_gives_not_built_rows(monkeypatch):
    def placeholder(*args, **kwargs):
        raise NotImplementedError("convert is not built yet")

    monkeypatch.setattr(ag, "convert", placeholder)
    per_name, mean = conversion.measure_ours(TINY)
    assert mean == Missing("not built")
    assert all(r.reason == "not built" for r in per_name.values())
    assert blame_unbuilt(Missing("failed", "StagingError")).reason == "not built"


def test_xla_section_measures_every_side_or_says_why():
    """Section 7 on tiny inputs: a number (or "not built" without JAX) in every cell of every row."""
    section = xla_backend.run(TINY)
    assert len(section.rows) == 6
    for row in section.rows:
        assert all(cell for cell in row), row
        assert not any("failed" in cell for cell in row), (row, section.notes)
