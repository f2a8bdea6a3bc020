"""np.asarray/np.array/np.zeros/np.full/np.eye with staged arguments (converted code's overrides)."""

from __future__ import annotations

import numpy as np
import pytest

from runtime.backends.numpy.compiler import compile_graph
from runtime.ir.errors import StagingError
from runtime.operators.builtins import OVERRIDES
from runtime.tracing.creation import CALL_OVERRIDES
from tests.runtime.ops.staging import check, stage
from tests.runtime.tracing import build

asarray, array, zeros, ones, full, eye, empty, arange = (
    CALL_OVERRIDES[f] for f in (np.asarray, np.array, np.zeros, np.ones, np.full, np.eye, np.empty, np.arange)
)
X = np.arange(6.0).reshape(2, 3).astype(np.float32)


def test_overrides_reach_converted_code():
    for function, override in CALL_OVERRIDES.items():
        assert OVERRIDES[function] is override


def test_python_values_go_to_numpy():
    assert asarray([1, 2]).dtype == np.int64
    assert zeros((2, 3)).shape == (2, 3)
    assert full(2, 1.5).tolist() == [1.5, 1.5]
    assert eye(2, dtype=np.int8).dtype == np.int8


def test_asarray_of_tensors():
    check(asarray, X)
    check(lambda t: asarray(t, np.int32), X)
    check(lambda t: array(t, dtype=np.float64), X)
    check(lambda t: asarray([t, t * 2]), X)
    check(lambda t: asarray([[t[0, 0], 1.0], [2.0, t[1, 1]]]), X)
    _, (out,) = stage(asarray, [X])
    assert out.node.op == "input"


def test_zeros_ones_full_with_staged_sizes():
    check(lambda t: zeros((np.shape(t)[0], 3)), X, unknown=[(0, 0)], exact=False)
    _, (out,) = stage(lambda t: zeros((np.shape(t)[0], 3), np.int32), [X], unknown=[(0, 0)])
    assert (out.shape, out.dtype) == ((None, 3), np.int32)
    check(lambda t: ones(np.shape(t), np.int8), X, unknown=[(0, 1)], exact=False)
    check(lambda t: full((2, 2), t[0, 1]), X)
    check(lambda t: full(np.shape(t), 7), X, unknown=[(0, 0)], exact=False)
    check(lambda t: empty(np.size(t)) + 1, X, unknown=[(0, 0)], exact=False)
    check(lambda t: eye(np.shape(t)[1]), X, unknown=[(0, 1)], exact=False)
    _, (out,) = stage(lambda t: eye(np.shape(t)[1], 4), [X], unknown=[(0, 1)])
    assert out.shape == (None, 4)


def test_shape_tensor_of_unknown_rank():
    _, (out,) = stage(lambda t: zeros(np.shape(t)), [X], unknown_rank=[0])
    assert out.shape is None


def test_concrete_sizes_without_override_explain():
    with pytest.raises(StagingError, match="int/index"):
        stage(lambda t: np.zeros((np.shape(t)[0], 2)), [X], unknown=[(0, 0)])


def test_an_unknown_dimension_in_a_shape_says_to_use_len():
    makers = {"np.zeros((None, 2), ...)": lambda t: zeros((t.shape[0], 2)),
              "np.full(None, ...)": lambda t: full(t.shape[0], 1.0)}
    for call, make in makers.items():
        with pytest.raises(StagingError, match=r"gets None where a size is expected.*len\(x\)") as info:
            stage(make, [X], unknown=[(0, 0)])
        assert f"{__file__}:" in str(info.value) and f": {call} gets None" in str(info.value)
    with pytest.raises(TypeError):
        zeros((None, 2))  # outside a trace NumPy's own error


@pytest.mark.parametrize("n", [np.int32(5), np.int64(0), np.float32(2.5), np.int8(3)])
def test_arange_with_staged_bounds_matches_numpy(n):
    def ranges(t):
        return arange(t), arange(1, t), arange(0.5, t, 0.5), arange(t, dtype=np.float32), arange(t - 1, -1, -1)

    run = compile_graph(build(ranges, (n.dtype, ())))
    for got, want in zip(run(n), ranges(n)):
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
