"""Namedtuples in saved signatures: saved as a name and field names, recreated on load.

The round trip runs in a fresh interpreter where the module defining the
namedtuples no longer exists: the loaded function returns a recreated
namedtuple type with the same name, fields and values, and accepts any
namedtuple with the same fields, or a plain tuple of the same length.
"""

from __future__ import annotations

import json
import pickle
import shutil
import sys
import textwrap
from collections import namedtuple

import numpy as np
import pytest

import autograph as ag
from runtime.backends.export import saved_format, saved_read
from tests.autograph.test_saved_model import _fresh_python, _import, _rewrite

_PROGRAM = textwrap.dedent('''
    import collections
    import typing

    import numpy as np

    import autograph as ag

    Point = collections.namedtuple("Point", ["x", "y"])

    class Stats(typing.NamedTuple):
        total: np.ndarray
        scaled: np.ndarray

    @ag.function
    def summarize(p, scale):
        total = p.x + p.y
        return Stats(total=total, scaled={"s": total * scale, "pair": (p.x, p.y)})
''')

_LOADER = textwrap.dedent('''
    import pickle, sys
    from collections import namedtuple
    import numpy as np
    from runtime.backends.export import saved_read
    loaded = saved_read.read("saved")
    assert not any(m == "autograph" or m.startswith("autograph.") or m.startswith("nt_program") for m in sys.modules)
    x, y = np.arange(3.0), np.ones(3)
    Other = namedtuple("Other", ["x", "y"])  # a different class with the same fields
    results = []
    for p in ((x, y), Other(x, y), Other(x=y, y=x)):
        out = loaded(p, np.float64(2.0))
        results.append((type(out).__name__, type(out)._fields, type(out.scaled["pair"]).__name__,
                        np.asarray(out.total), np.asarray(out.scaled["s"]),
                        [np.asarray(v) for v in out.scaled["pair"]]))
    errors = []
    for bad in ((x, y, x), namedtuple("Wrong", ["a", "b"])(x, y), [x, y]):
        try:
            loaded(bad, np.float64(2.0))
        except Exception as error:
            errors.append((type(error).__name__, str(error)))
    pickle.dump((results, errors), open("results.pkl", "wb"))
''')


@pytest.fixture
def saved_program(tmp_path):
    """The program traced and saved, then its source removed and its module forgotten."""
    sources = tmp_path / "src"
    sources.mkdir()
    module = _import(_PROGRAM, sources, "nt_program")
    x, y = np.arange(3.0), np.ones(3)
    live = module.summarize(module.Point(x, y), np.float64(2.0))
    ag.saved_model.save(module.summarize, tmp_path / "saved")
    del sys.modules["nt_program"]
    shutil.rmtree(sources)
    return tmp_path, live


def test_namedtuples_round_trip_without_their_module(saved_program):
    base, live = saved_program
    done = _fresh_python(_LOADER, base)
    assert done.returncode == 0, done.stderr[-3000:]
    results, errors = pickle.loads((base / "results.pkl").read_bytes())
    for name, fields, pair_type, total, scaled, pair in results[:2]:
        assert (name, fields, pair_type) == ("Stats", ("total", "scaled"), "tuple")
        np.testing.assert_array_equal(total, live.total)
        np.testing.assert_array_equal(scaled, live.scaled["s"])
        np.testing.assert_array_equal(pair[0], np.arange(3.0))
        np.testing.assert_array_equal(pair[1], np.ones(3))
    # fields are passed by name: Other(x=y, y=x) swaps them
    np.testing.assert_array_equal(results[2][5][0], np.ones(3))
    assert len(errors) == 3 and all(name == "TypeError" for name, _ in errors), errors
    assert "structured as" in errors[1][1], errors


def test_the_saved_file_records_name_and_fields(saved_program):
    base, _ = saved_program
    document = json.loads((base / "saved" / saved_format.GRAPH_FILE).read_text())
    manifest = json.loads((base / "saved" / saved_format.MANIFEST_FILE).read_text())
    assert document["version"] == manifest["version"] == saved_format.NAMEDTUPLE_VERSION
    concrete = document["functions"]["summarize"][0]
    point = concrete["inputs"]["tree"]["children"][0]
    assert (point["kind"], point["name"], point["fields"]) == ("namedtuple", "Point", ["x", "y"])
    out = concrete["outputs"]["tree"]
    assert (out["kind"], out["name"], out["fields"]) == ("namedtuple", "Stats", ["total", "scaled"])


def test_a_file_without_namedtuples_stays_version_1(tmp_path):
    ag.saved_model.save(ag.function(lambda x: (x, x * 2)).get_concrete_function(np.ones(2)), tmp_path)
    assert json.loads((tmp_path / saved_format.MANIFEST_FILE).read_text())["version"] == 1
    assert json.loads((tmp_path / saved_format.GRAPH_FILE).read_text())["version"] == 1


def _point(document):
    return document["functions"]["summarize"][0]["inputs"]["tree"]["children"][0]


@pytest.mark.parametrize("change, message", [
    (lambda p: p.update(name="os.system"), "is not a Python identifier"),
    (lambda p: p.update(name="Point; import os"), "is not a Python identifier"),
    (lambda p: p.update(name="class"), "keyword"),
    (lambda p: p.update(fields=["x", "x"]), "repeated fields"),
    (lambda p: p.update(fields=["x"]), "not one per item"),
    (lambda p: p.update(fields=["x", "_y"]), "starting with '_'"),
    (lambda p: p.update(fields=["x", "__import__('os')"]), "is not a Python identifier"),
    (lambda p: p.update(fields="x y"), "fields should be a list"),
    (lambda p: p.update(fields=["x", 3]), "is not a Python identifier"),
    (lambda p: p.pop("name"), "malformed"),
])
def test_a_malformed_namedtuple_entry_is_refused(saved_program, change, message):
    base, _ = saved_program
    _rewrite(base / "saved", lambda d: change(_point(d)))
    with pytest.raises(saved_format.LoadError, match=message):
        saved_read.read(base / "saved")


def test_a_version_1_file_cannot_hold_a_namedtuple(saved_program):
    base, _ = saved_program
    _rewrite(base / "saved", lambda d: d.update(version=1))
    with pytest.raises(saved_format.LoadError, match="unknown kind 'namedtuple'"):
        saved_read.read(base / "saved")


def test_a_subclassed_namedtuple_loads_as_a_plain_one(tmp_path):
    class Pair(namedtuple("Pair", "a b")):
        def total(self):
            return self.a + self.b

    swap = ag.function(lambda p: Pair(p.b, p.a))
    live = swap(Pair(np.ones(2), np.zeros(2)))
    ag.saved_model.save(swap, tmp_path)
    out = saved_read.read(tmp_path)((np.ones(2), np.zeros(2)))
    assert type(out).__name__ == "Pair" and type(out)._fields == ("a", "b") and not hasattr(out, "total")
    np.testing.assert_array_equal(out.a, live.a)
    np.testing.assert_array_equal(out.b, live.b)


def test_dataclasses_are_still_refused_with_the_reason(tmp_path):
    from dataclasses import dataclass

    @dataclass
    class Box:
        v: np.ndarray

    f = ag.function(lambda b: b.v * 2)
    f(Box(np.ones(2)))
    with pytest.raises(saved_format.SaveError, match=r"Box \(a dataclass\), whose class a saved graph cannot hold"):
        ag.saved_model.save(f, tmp_path / "s")


def test_the_signature_names_the_namedtuple_fields(saved_program):
    base, _ = saved_program
    loaded = saved_read.read(base / "saved")
    text = loaded.summarize.pretty_printed_concrete_signatures()
    assert "p: Point(x=float64 Tensor" in text and "Stats(total=float64 Tensor" in text, text


@pytest.mark.parametrize("namedtuple_first", [True, False])
def test_a_tuple_selects_the_trace_saved_for_a_tuple(tmp_path, namedtuple_first):
    Pair = namedtuple("Pair", "a b")
    same = ag.function(lambda p: p)
    x = np.ones(2)
    calls = [Pair(x, x), (x, x)] if namedtuple_first else [(x, x), Pair(x, x)]
    for call in calls:
        same(call)
    ag.saved_model.save(same, tmp_path)
    loaded = saved_read.read(tmp_path)
    assert type(loaded((x, x))) is tuple
    out = loaded(namedtuple("Other", "a b")(x, 2 * x))
    assert type(out).__name__ == "Pair" and out._fields == ("a", "b")
    np.testing.assert_array_equal(out.b, 2 * x)
