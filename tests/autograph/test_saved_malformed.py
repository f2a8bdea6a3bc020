"""Malformed fields of a saved graph (with the manifest's hashes made right, as a forgery
would): each is a LoadError saying what is wrong, never a warning, a crash or a misread.

Dtypes must be written exactly as the writer writes them (NumPy's `dtype.str` in native
byte order): aliases NumPy also reads, some of them deprecated ("a", "d", "f8", "=f8"),
are refused.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from runtime.backends.export import saved_format

v = ag.Variable(np.float64(2.0), name="v")


@ag.function(follow_type_hints=True)
def scaled(x: ag.Tensor, n, k=2):
    v.assign_add(x[0])
    return x * k + n, {"a": v.read_value()}


@pytest.fixture
def saved_dir(tmp_path) -> Path:
    scaled(np.float64([1.0, 2.0]), np.int64(3))
    ag.saved_model.save(scaled, tmp_path / "s")
    return tmp_path / "s"


def _rewrite(directory: Path, change) -> None:
    graph = directory / saved_format.GRAPH_FILE
    document = json.loads(graph.read_text())
    change(document)
    data = json.dumps(document).encode()
    graph.write_bytes(data)
    manifest = json.loads((directory / saved_format.MANIFEST_FILE).read_text())
    manifest["files"][saved_format.GRAPH_FILE] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (directory / saved_format.MANIFEST_FILE).write_text(json.dumps(manifest))


def _function(document) -> dict:
    return document["functions"]["scaled"][0]


def _input_type(document) -> dict:
    return _function(document)["inputs"]["plan"][0]["tensor"]


def _set(getter, key, value):
    return lambda document: getter(document).__setitem__(key, value)


def test_thescaled_file_loads_as_written(saved_dir):
    loaded = ag.saved_model.load(saved_dir)
    result, state = loaded(np.float64([1.0, 2.0]), np.int64(3))
    np.testing.assert_array_equal(result, [5.0, 7.0])
    assert state == {"a": 4.0}


@pytest.mark.parametrize("dtype", ["a", "|a", "<a", "d", "<d", "f8", "=f8", ">f8", "float64", "<f8 ", "<M8",
                                   "|V8", "<i8\n", "", 8, None, ["<f8"]])
def test_a_dtype_not_written_asscaled_is_refused(saved_dir, dtype):
    def change(document):
        _input_type(document)["dtype"] = dtype
        _function(document)["graph"]["nodes"][0]["type"]["dtype"] = dtype

    _rewrite(saved_dir, change)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's DeprecationWarning for "a" must not escape
        with pytest.raises(saved_format.LoadError, match="the dtype"):
            ag.saved_model.load(saved_dir)


@pytest.mark.parametrize("change, message", [
    (_set(_input_type, "shape", [-1]), "invalid dimension"),
    (_set(_input_type, "shape", [True]), "invalid dimension"),
    (_set(_input_type, "shape", [2.0]), "invalid dimension"),
    (_set(_input_type, "shape", "2"), "a shape"),
    (_set(_input_type, "extra", 1), "a type of unknown form"),
    (lambda d: _function(d)["params"][0].update(kind="SOMETIMES"), "parameter of unknown kind"),
    (lambda d: _function(d)["params"][0].update(tensor="yes"), "'tensor' is 'yes', not true or false"),
    (lambda d: _function(d)["params"][0].update(name="x y"), "not a Python identifier"),
    (lambda d: _function(d)["params"].pop(), "do not match its 2 parameters"),
    (lambda d: _function(d).pop("graph"), "KeyError"),
    (lambda d: _function(d)["outputs"].update(plan=[0, 7]), "returns an output its graph does not have"),
    (lambda d: _function(d)["inputs"]["plan"][2].update(python={"pickle": "x"}), "tagged 'pickle'"),
    (lambda d: _function(d)["graph"]["nodes"][2].update(inputs="x"), "inputs"),
    (lambda d: d["variables"][0].update(initialized="yes"), "initialized"),
    (lambda d: d["variables"][0]["type"].update(dtype="<i8"), "the value of variable 'v' is float64"),
    (lambda d: d.update(callable="nowhere"), "callable function 'nowhere'"),
    (lambda d: d.update(functions=[]), "functions"),
    (lambda d: d.update(version="1"), "no format version"),
])
def test_a_malformed_field_is_a_load_error(saved_dir, change, message):
    _rewrite(saved_dir, change)
    with pytest.raises(saved_format.LoadError, match=message):
        ag.saved_model.load(saved_dir)
