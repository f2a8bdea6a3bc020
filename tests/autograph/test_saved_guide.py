"""Every guide example saved, loaded and run in a fresh process without its source.

A first process runs the guide's tests (tests/guide), and the guide's examples as
bench/corpus/guide.py traces them, with a recorder plugin (tests/autograph/guide_recorder.py)
that notes every call of a Function that returned, saves each Function, and makes its
calls again live. A second process, whose sys.path
holds only the `runtime` package and the record helper (no tests/guide, no autograph),
loads every saved directory and makes the same calls. Results, printed text and errors
must be equal bit for bit.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_LOADER = textwrap.dedent('''
    import importlib.util, pickle, sys
    assert importlib.util.find_spec("tests.guide") is None, "the guide's modules are importable"
    from runtime.backends.export import saved_read
    from tests.autograph.saved_records import run_calls
    results = {}
    for name, directory, calls, _ in pickle.load(open("jobs.pkl", "rb")):
        loaded = saved_read.read(directory)
        results[name] = run_calls(loaded, calls, keywords=True, variables=loaded.variables)
    assert not any(m == "autograph" or m.startswith("autograph.") for m in sys.modules), "imported autograph"
    pickle.dump(results, open("results.pkl", "wb"))
''')


def _library(base: Path) -> Path:
    """A folder holding only what loading needs: `runtime` and the record helper."""
    lib = base / "lib"
    (lib / "tests" / "autograph").mkdir(parents=True)
    (lib / "runtime").symlink_to(ROOT / "runtime")
    for init in (lib / "tests" / "__init__.py", lib / "tests" / "autograph" / "__init__.py"):
        init.write_text("")
    shutil.copy(ROOT / "tests" / "autograph" / "saved_records.py", lib / "tests" / "autograph")
    return lib


@pytest.fixture(scope="module")
def guide_round_trip(tmp_path_factory):
    """(stats, {name: live records}, {name: loaded records})."""
    base = tmp_path_factory.mktemp("saved_guide")
    record, work = base / "record", base / "work"
    record.mkdir()
    work.mkdir()
    env = {**os.environ, "AUTOGRAPH_GUIDE_RECORD": str(record), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(ROOT / "tests" / "guide"), "-q", "-p", "tests.autograph.guide_recorder",
         "-p", "no:cacheprovider", "-W", "ignore"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    jobs = pickle.loads((record / "jobs.pkl").read_bytes())
    shutil.copy(record / "jobs.pkl", work / "jobs.pkl")
    env = {**os.environ, "PYTHONPATH": str(_library(base))}
    done = subprocess.run([sys.executable, "-c", _LOADER], cwd=work, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = pickle.loads((work / "results.pkl").read_bytes())
    stats = json.loads((record / "stats.json").read_text())
    return stats, {name: live for name, _, _, live in jobs}, loaded


def test_every_guide_function_that_can_be_saved_is_saved(guide_round_trip):
    stats, live, _ = guide_round_trip
    assert stats["saved"] == len(live) >= 100 and stats["calls"] >= 200, stats
    assert sum(name.startswith("bench.corpus.guide.") for name in live) >= 7  # the bench's guide cases
    # What does not save is what docs/saving.md says cannot be: Python code and classes.
    for name, why in stats["not_saved"].items():
        assert any(reason in why for reason in (
            "runs Python code", "whose class a saved graph cannot hold", "no longer exists",
        )), (name, why)
    assert len(stats["not_saved"]) <= 8, stats["not_saved"]
    assert stats["retraced_on_replay"] == 0


def test_loaded_guide_functions_give_exactly_what_the_live_ones_give(guide_round_trip):
    from tests.autograph.saved_records import same_records

    _, live, loaded = guide_round_trip
    assert set(loaded) == set(live)
    differences = {name: same_records(live[name], loaded[name]) for name in live}
    assert {name: d for name, d in differences.items() if d} == {}
    outcomes = [record[1][0] for records in live.values() for record in records]
    assert outcomes.count("ok") >= 0.9 * len(outcomes)
