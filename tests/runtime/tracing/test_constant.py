"""Concrete values in a trace: ag.constant and the arrays an op is given keep the value traced."""

from __future__ import annotations

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph
from runtime.tracing.constant import constant
from tests.runtime.tracing import build


@pytest.mark.parametrize("use", [
    lambda x, w: x * w, lambda x, w: np.concatenate([x, w]), lambda x, w: np.where(x > 0, w, 0.0),
    lambda x, w: np.maximum(w, x), lambda x, w: x + constant(w),
])
def test_a_captured_array_changed_after_the_trace_keeps_its_traced_value(use):
    w = np.array([1.0, 2.0])
    run = compile_graph(build(lambda x: use(x, w), (np.float64, (2,))))
    x = np.ones(2)
    before = run(x)[0]
    w[0] = 100.0  # a global changed in place between calls, as the guide's rebound globals
    np.testing.assert_array_equal(run(x)[0], before)


def test_read_only_arrays_are_not_copied():
    w = np.array([1.0, 2.0])
    w.flags.writeable = False
    graph = build(lambda x: x * w, (np.float64, (2,)))
    assert any(n.op == "constant" and n.attrs["value"] is w for n in graph.nodes)
