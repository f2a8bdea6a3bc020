"""Forged saved graphs: any change to the graph file that keeps the manifest's hashes right
(what a deliberate forgery does) loads, or is a LoadError; never another exception, never code."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from runtime.backends.export import saved_format as saved  # the format: file names, LoadError

_REPLACEMENTS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=6), st.sampled_from(
        ["add", "while", "input", "capture", "<f8", "|O", "x; import os", "a0", "v0"]),
    st.lists(st.integers(-1, 2), max_size=3), st.just({}), st.just({"tuple": []}), st.just({"float": "1e999"}),
    st.just({"slot": 7}), st.just({"graph": {}}), st.just({"variable": 3}),
)


def _paths(value, prefix=()):
    """Every (path, value) inside a JSON document."""
    yield prefix, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    v = ag.Variable(np.float64(2.0), name="v")

    @ag.function
    def f(x, n):
        ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
        for i in ag.range(n):
            if x[i % 2] > 0:
                v.assign_add(x[0])
            ta = ta.write(i, x[1] * i)
        ag.print("done", n)
        return ta.stack(), v.read_value() + np.sum(x[::-1])

    f(np.float64([1.0, 2.0]), np.int64(3))
    directory = tmp_path_factory.mktemp("forgery") / "f"
    ag.saved_model.save(f, directory)
    return directory, json.loads((directory / saved.GRAPH_FILE).read_text())


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_forged_graph_loads_or_is_a_load_error(original, tmp_path_factory, data):
    directory, document = original
    paths = list(_paths(document))
    forged = copy.deepcopy(document)
    for _ in range(data.draw(st.integers(1, 3))):
        path, _ = data.draw(st.sampled_from(paths[1:]))
        target = forged
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = data.draw(_REPLACEMENTS)
        except (KeyError, IndexError, TypeError):
            continue
    target_dir = tmp_path_factory.mktemp("forged")
    for name in (saved.ARRAYS_FILE, saved.VARIABLES_FILE, saved.MANIFEST_FILE):
        (target_dir / name).write_bytes((directory / name).read_bytes())
    text = json.dumps(forged).encode()
    (target_dir / saved.GRAPH_FILE).write_bytes(text)
    manifest = json.loads((target_dir / saved.MANIFEST_FILE).read_text())
    manifest["files"][saved.GRAPH_FILE] = {"size": len(text), "sha256": hashlib.sha256(text).hexdigest()}
    (target_dir / saved.MANIFEST_FILE).write_text(json.dumps(manifest))
    try:
        ag.saved_model.load(target_dir)
    except saved.LoadError:
        pass
    assert Path(target_dir).exists()
