"""ag.scan, ag.map_fn, ag.switch_case: one staged loop or branch chain, equal to the Python run and NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from runtime.ir.errors import StagingError
from runtime.ir.structure import flatten

FLOATS = st.sampled_from([np.float64, np.float32])


def _ops(fn, *specs):
    graph = ag.function(fn).get_concrete_function(*specs).graph
    return [n.op for n in graph.as_graph_def().node]


def _nested_ops(fn, *specs):
    """Every op in the traced graph and, recursively, in its branches and loop bodies."""
    from runtime.ir.graph import Graph

    def walk(graph):
        for node in graph.nodes:
            yield node.op
            for value in node.attrs.values():
                if isinstance(value, Graph):
                    yield from walk(value)

    return list(walk(ag.function(fn).get_concrete_function(*specs).graph))


def _same(a, b):
    la, lb = flatten(a)[0], flatten(b)[0]
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape, (x.dtype, y.dtype, x.shape, y.shape)
        np.testing.assert_allclose(x, y, rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), FLOATS, st.integers(0, 2**16))
def test_scan_is_a_running_fold(rows, cols, dtype, seed):
    x = np.random.default_rng(seed).normal(size=(rows, cols)).astype(dtype)

    def running(x):
        return ag.scan(lambda acc, v: acc + v, x), ag.scan(lambda acc, v: acc * 0.5 + v.sum(), x, initializer=dtype(1))

    staged, eager = ag.function(running)(x), running(x)
    _same(staged, eager)
    np.testing.assert_allclose(staged[0], np.cumsum(x, axis=0), rtol=1e-5)
    unknown = ag.function(running).get_concrete_function(ag.TensorSpec((None, cols), dtype))
    _same(unknown(x), eager)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 6), FLOATS, st.integers(0, 2**16))
def test_map_fn_applies_fn_to_each_row(rows, dtype, seed):
    x = np.random.default_rng(seed).normal(size=(rows, 3)).astype(dtype)

    def mapped(x):
        return ag.map_fn(lambda row: (row @ row, {"max": np.max(row), "i": np.int32(1)}), x)

    got = ag.function(mapped)(x)
    np.testing.assert_allclose(got[0], np.einsum("ij,ij->i", x, x), rtol=1e-5)
    assert got[0].dtype == dtype and got[1]["i"].dtype == np.int32 and got[1]["max"].shape == (rows,)
    if rows:
        _same(got, mapped(x))


def test_structures_of_elems_and_accumulators():
    x, y = np.arange(4.0), np.arange(4) * 10

    def f(x, y):
        pairs = ag.map_fn(lambda e: e[0] + e[1], (x, y))
        fib = ag.scan(lambda acc, _: (acc[1], acc[0] + acc[1]), x, initializer=(np.int64(0), np.int64(1)))
        return pairs, fib

    _same(ag.function(f)(x, y), f(x, y))
    assert list(f(x, y)[1][0]) == [1, 1, 2, 3]


def test_one_loop_however_many_elements():
    def f(x):
        return ag.scan(lambda a, v: a + v, x), ag.map_fn(lambda v: v * 2, x)

    small = _ops(f, ag.TensorSpec((3,), np.float64))
    big = _ops(f, ag.TensorSpec((300,), np.float64))
    assert small.count("while") == 2 and len(small) == len(big)


def test_scan_accumulator_keeps_its_dtype():
    def f(x):
        return ag.scan(lambda acc, v: acc + v, x, initializer=np.int64(0))

    with pytest.raises(StagingError, match="fn returns a float64 accumulator but it starts as int64"):
        ag.function(f)(np.ones(3))


def test_elems_must_agree_on_the_first_dimension():
    with pytest.raises(StagingError, match="different first dimensions"):
        ag.function(lambda a, b: ag.map_fn(lambda e: e[0], (a, b)))(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="different first dimensions"):
        ag.map_fn(lambda e: e[0], (np.ones(3), np.ones(4)))
    with pytest.raises(StagingError, match="not a scalar"):
        ag.function(lambda a: ag.map_fn(lambda e: e, a))(np.float64(1))


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 7])
def test_switch_case_selects_like_tensorflow(k):
    def f(x, k):
        with_default = ag.switch_case(k, [lambda: x + 1, lambda: x * 2, lambda: x - 3], default=lambda: x * 0)
        last_default = ag.switch_case(k, {1: lambda: x.sum(), 0: lambda: x.max()})
        pairs = ag.switch_case(k, [(0, lambda: x[0]), (1, lambda: x[1])])
        return with_default, last_default, pairs

    x = np.arange(3.0)
    eager = f(x, k)
    _same(ag.function(f)(x, np.int64(k)), eager)
    expected = [x + 1, x * 2, x - 3][k] if 0 <= k < 3 else x * 0
    np.testing.assert_array_equal(eager[0], expected)
    assert eager[1] == (x.max() if k == 0 else x.sum())


def test_switch_case_is_a_chain_of_conds_not_calls_at_trace_time():
    ops = _nested_ops(lambda x, k: ag.switch_case(k, [lambda: x, lambda: -x, lambda: 2 * x, lambda: 3 * x]),
               ag.TensorSpec((2,), np.float64), ag.TensorSpec((), np.int64))
    assert ops.count("cond") == 3


def test_switch_case_errors():
    with pytest.raises(ValueError, match="keys must be 0..1"):
        ag.switch_case(0, {0: lambda: 1, 2: lambda: 2})
    with pytest.raises(TypeError, match="not a callable"):
        ag.switch_case(0, [1, 2])
    with pytest.raises(StagingError, match="scalar integer"):
        ag.function(lambda k: ag.switch_case(k, [lambda: 1.0, lambda: 2.0]))(np.float64(1))
    with pytest.raises(StagingError, match="different"):
        ag.function(lambda k: ag.switch_case(k, [lambda: 1.0, lambda: (1.0, 2.0)]))(np.int64(1))
