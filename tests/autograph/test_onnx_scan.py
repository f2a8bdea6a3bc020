"""ONNX export of TensorArrays filled in loops: scan outputs where the write index is the
loop counter, sequences otherwise; both agree with the NumPy backend."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.autograph.onnx_helpers import op_counts as _ops

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _loop_body(model):
    loop = next(n for n in model.graph.node if n.op_type == "Loop")
    return loop, loop.attribute[0].g


def _run(model, feed):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feed)


def _same(expected, actual):
    leaves = expected if isinstance(expected, tuple) else (expected,)
    assert len(leaves) <= len(actual)
    for e, a in zip(leaves, actual):
        e = np.asarray(e)
        assert e.dtype == a.dtype and e.shape == a.shape, (e, a)
        np.testing.assert_allclose(a, e, rtol=1e-12)


@ag.function
def running_sums(x):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    total = np.float64(0.0)
    for i in ag.range(len(x)):
        total = total + x[i]
        ta = ta.write(i, total)
    return ta.stack(), ta.size()


@ag.function
def rnn(data, state):
    steps = np.shape(data)[0]
    states = ag.TensorArray(np.float32, size=steps)
    for i in ag.range(steps):
        state = np.tanh(data[i] + state)
        states = states.write(i, state)
    return states.stack(), states.read(steps - 1)


def test_a_counted_write_at_the_counter_is_a_scan_output():
    model = ag.onnx.to_model(running_sums, ag.TensorSpec([None], np.float64))
    onnx.checker.check_model(model, full_check=True)
    loop, body = _loop_body(model)
    assert len(loop.output) == len(body.output) - 1  # no TensorArray carried in, one stacked out
    assert not [op for op in _ops(model.graph) if op.startswith(("Sequence", "ConcatFromSequence"))]
    for x in (np.array([1.5, 2.0, -1.0]), np.zeros(0), np.arange(50.0)):
        _same(running_sums(x), _run(model, {"x": x}))


def test_a_sized_array_filled_by_its_own_count_is_a_scan_output_and_reads_after_the_loop():
    model = ag.onnx.to_model(rnn, ag.TensorSpec([None, 3], np.float32), np.zeros(3, np.float32))
    _, body = _loop_body(model)
    assert not [op for op in _ops(body) if "Sequence" in op]
    data = np.random.default_rng(0).uniform(size=(5, 3)).astype(np.float32)
    expected = rnn(data, np.zeros(3, np.float32))
    actual = _run(model, {"data": data, "state": np.zeros(3, np.float32)})
    for e, a in zip(expected, actual):
        np.testing.assert_allclose(a, e, rtol=1e-6)
        assert e.dtype == a.dtype and e.shape == a.shape


def _written_elsewhere(x):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    k = np.int64(0)
    for i in ag.range(len(x)):
        ta = ta.write(k, x[i] * 2)  # not the counter
        k += 1
    return ta.stack()


def _read_in_the_body(x):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.write(0, np.float64(1.0))
    for i in ag.range(len(x)):
        ta = ta.write(i + 1, ta.read(i) + x[i])  # reads what it wrote
    return ta.stack()


def _not_empty_before(x):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.write(0, np.float64(-1.0))
    for i in ag.range(len(x)):
        ta = ta.write(i, x[i])  # overwrites element 0, then grows
    return ta.stack()


def _from_one(x):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    ta = ta.write(0, np.float64(0.0))
    for i in ag.range(1, len(x)):
        ta = ta.write(i, x[i] + x[i - 1])  # the counter starts at 1
    return ta.stack()


def _larger_than_the_loop(x):
    ta = ag.TensorArray(np.float64, size=len(x) + 1, element_shape=())
    for i in ag.range(len(x)):
        ta = ta.write(i, x[i])  # the last element stays unwritten
    ta = ta.write(len(x), np.float64(7.0))
    return ta.stack()


def _nested(x):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    for i in ag.range(len(x)):
        for j in ag.range(2):
            ta = ta.write(2 * i + j, x[i] * (j + 1))
    return ta.stack()


@pytest.mark.parametrize("program", [_written_elsewhere, _read_in_the_body, _not_empty_before, _from_one,
                                     _larger_than_the_loop, _nested])
def test_other_writes_stay_sequences_and_agree(program):
    function = ag.function(program)
    model = ag.onnx.to_model(function, ag.TensorSpec([None], np.float64))
    loop, body = _loop_body(model)
    assert len(loop.output) == len(body.output) - 1  # nothing stacked as a scan output
    assert any("Sequence" in op for op in _ops(model.graph))
    for x in (np.array([1.5, 2.0, -1.0, 4.0]), np.array([3.0])):
        _same(function(x), _run(model, {"x": x}))
