"""`define`: one NumPy call gives an op's infer, impl and emit; `stage` records it."""

from __future__ import annotations

import numpy as np
import pytest

from runtime.ir.errors import StagingError
from runtime.ops import OPS, get_op
from runtime.ops.calls import Slot, Weak
from runtime.ops.define import define
from runtime.ops.probing import elementwise_type
from runtime.tracing.record import stage
from tests.runtime.ops.staging import assert_same, run_graph
from tests.runtime.ops.staging import stage as stage_fn


def test_operator_format_and_keyword_fallback():
    add = get_op("add")
    assert add.emit(["a", "b"], {}) == "a + b"
    assert add.emit(["a"], {"args": (Slot(0), Weak(-1))}) == "a + (-1)"
    assert add.emit(["a", "b"], {"dtype": np.dtype("float32")}) == "np.add(a, b, dtype=np.dtype('float32'))"
    assert get_op("negative").emit(["a"], {}) == "-a"
    assert get_op("absolute").emit(["a"], {}) == "abs(a)"
    assert get_op("tanh").emit(["a"], {}) == "np.tanh(a)"
    assert get_op("median").emit(["a"], {"axis": Weak(0)}) == "np.median(a, axis=0)"
    assert get_op("cast").emit(["a"], {"dtype": np.dtype("int64")}) == "a.astype(np.dtype('int64'))"
    assert get_op("cast").emit(["a"], {"dtype": np.int32}) == "a.astype(np.dtype('int32'))"


@pytest.mark.parametrize("op, attrs, values, expected", [
    ("add", {}, (np.arange(3), np.ones(3, np.float32)), np.arange(3) + np.ones(3, np.float32)),
    ("cast", {"dtype": np.int8}, (np.arange(3.5),), np.arange(3.5).astype(np.int8)),
    ("sum", {"axis": 0}, (np.ones((2, 3)),), np.ones((2, 3)).sum(axis=0)),
    ("less", {}, (np.arange(3), np.int64(1)), np.arange(3) < np.int64(1)),
])
def test_records_made_by_hand_work_too(op, attrs, values, expected):
    """Other layers call record("add", (a, b)) or record("cast", (t,), {"dtype": ...}) directly."""
    from runtime.tracing.record import record

    graph, (out,) = stage_fn(lambda *ts: record(op, ts, dict(attrs)), values)
    assert (out.dtype, out.shape) == (expected.dtype, expected.shape)
    for use_emit in (False, True):
        assert_same(run_graph(graph, values, use_emit)[out.node], expected)


def test_rule_errors_become_staging_errors_naming_the_user_line():
    with pytest.raises(StagingError, match=r"test_define.py:\d+: np.tanh: .*not supported"):
        stage_fn(lambda a: np.tanh(a), [np.array(["x"])])


def test_duplicate_names_are_rejected():
    assert "add" in OPS
    with pytest.raises(AssertionError, match="registered twice"):
        define("add", np.add, lambda *a: None)


def test_define_a_new_op_end_to_end():
    name = "test_define_logaddexp_scaled"

    def scaled(a, b, scale=1.0):
        return np.logaddexp(a, b) * scale

    if name not in OPS:
        define(name, scaled, lambda *args, **kw: elementwise_type(scaled, args, kw), path="scaled")
    try:
        values = (np.arange(3.0), np.ones(3, np.float32))
        graph, (out,) = stage_fn(lambda a, b: stage(name, (a, b), {"scale": 2.0}), values)
        expected = scaled(*values, scale=2.0)
        assert (out.dtype, out.shape) == (expected.dtype, expected.shape)
        assert_same(run_graph(graph, values, use_emit=False)[out.node], expected)
        assert get_op(name).emit(["a", "b"], out.node.attrs) == "scaled(a, b, scale=2.0)"
    finally:
        del OPS[name]
