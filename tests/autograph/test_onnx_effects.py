"""ONNX export of effects: ag.print is left out with a warning naming its line (or refused
with drop_prints=False); an assert stays a check that stops onnxruntime with its message."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import autograph as ag
from tests.autograph.onnx_helpers import op_counts as _ops

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _session(model):
    options = ort.SessionOptions()
    options.log_severity_level = 4
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


@ag.function
def fizzbuzz(n):
    total = np.int64(0)
    for i in ag.range(1, n + 1):
        if i % 15 == 0:
            ag.print("FizzBuzz")
        elif i % 3 == 0:
            ag.print("Fizz")
        else:
            ag.print(i)
        total += i
    return total


def test_prints_are_left_out_with_a_warning_naming_each_line(capsys):
    with pytest.warns(ag.onnx.DroppedPrintWarning) as caught:
        model = ag.onnx.to_model(fizzbuzz, np.int64(15))
    lines = sorted(w.lineno for w in caught)
    assert len(lines) == 3 and all(w.filename == __file__ for w in caught)
    assert all(re.search(rf"test_onnx_effects.py:{w.lineno}: ag.print in fizzbuzz has no ONNX form", str(w.message))
               for w in caught)
    assert _ops(model.graph)["If"] == 0  # the ifs that only printed are gone from the loop body
    for n in (15, 0, 4):
        assert _session(model).run(None, {"n": np.asarray(np.int64(n))})[0] == fizzbuzz(np.int64(n))
    capsys.readouterr()


def test_drop_prints_false_refuses_them_naming_the_line(tmp_path):
    with pytest.raises(ag.onnx.UnsupportedOpError, match=r"test_onnx_effects.py:\d+: the op 'print' has no ONNX "
                                                         r"form \(export with drop_prints=True"):
        ag.onnx.export(fizzbuzz, tmp_path / "f.onnx", np.int64(15), drop_prints=False)
    assert not (tmp_path / "f.onnx").exists()


def test_a_print_in_an_if_with_results_is_left_out_and_the_results_stay():
    @ag.function
    def f(x):
        if np.sum(x) > 0:
            ag.print("positive", x)
            y = x * 2
        else:
            y = -x
        return y

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.onnx.DroppedPrintWarning)
        model = ag.onnx.to_model(f, ag.TensorSpec([None], np.float64))
    for x in (np.array([1.0, 2.0]), np.array([-3.0])):
        np.testing.assert_array_equal(_session(model).run(None, {"x": x})[0], f(x))


@ag.function
def checked(x):
    assert np.sum(x) > 0, "x must sum to more than zero"
    total = np.float64(0.0)
    for v in x:
        if v < 0:
            assert v > -10, "no value below -10"
        total += v
    return total


def test_an_assert_is_a_check_that_stops_the_run_with_its_message():
    model = ag.onnx.to_model(checked, ag.TensorSpec([None], np.float64))
    onnx.checker.check_model(model, full_check=True)
    session = _session(model)
    x = np.array([1.0, -2.0, 3.0])
    assert session.run(None, {"x": x})[0] == checked(x) == 2.0
    for bad, message in ((np.array([-1.0, 0.5]), "x must sum to more than zero"),
                         (np.array([20.0, -11.0]), "no value below -10")):
        with pytest.raises(ag.errors.InvalidArgumentError, match=message):
            checked(bad)
        with pytest.raises(Exception, match=rf"assertion failed at .*test_onnx_effects.py:\d+: {message}"):
            session.run(None, {"x": bad})


def test_the_check_that_a_loop_ran_keeps_a_model_from_returning_garbage():
    @ag.function
    def last(x):
        for v in x:
            y = v * 2
        return y

    model = ag.onnx.to_model(last, ag.TensorSpec([None], np.float64))
    assert _session(model).run(None, {"x": np.array([1.0, 4.0])})[0] == 8.0
    with pytest.raises(Exception, match="assertion failed at .*the loop ran zero times"):
        _session(model).run(None, {"x": np.zeros(0)})
