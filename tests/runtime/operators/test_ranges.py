"""ag.range: Python range / np.arange outside a trace, a staged range inside."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime import operators as ag__
from runtime.ir.errors import StagingError
from runtime.operators.ranges import StagedRange, range_
from tests.runtime.operators.graphs import trace


def test_outside_a_trace():
    assert range_(5) == range(5)
    assert range_(1, 7, 2) == range(1, 7, 2)
    np.testing.assert_array_equal(range_(0.5, 2.0, 0.5), np.arange(0.5, 2.0, 0.5))
    np.testing.assert_array_equal(range_(np.int32(3)), np.arange(np.int32(3)))


def count_values(start, limit, delta):
    scope = {"count": 0, "total": start * 0}

    def get_state():
        return (scope["count"], scope["total"])

    def set_state(values):
        scope["count"], scope["total"] = values

    def loop_body(itr):
        scope["count"] = scope["count"] + 1
        scope["total"] = scope["total"] + itr

    ag__.for_stmt(range_(start, limit, delta), loop_body, ("count", "total"), opts={"iterate_names": "i"}, get_state=get_state, set_state=set_state)
    return scope["count"], scope["total"]


STAGED = trace(count_values, (np.int64, ()), (np.int64, ()), (np.int64, ()))


@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5).filter(bool))
def test_staged_range_loop_matches_python_range(start, limit, delta):
    expected = range(start, limit, delta)
    count, total = STAGED(np.int64(start), np.int64(limit), np.int64(delta))
    assert (count, total) == (len(expected), sum(expected))


def test_inside_a_trace_python_ints_give_a_staged_range_and_np_stack_gives_one_op():
    def f(n):
        r = range_(1, n, 2)
        assert isinstance(r, StagedRange)
        return np.stack(r)

    g = trace(f, (np.int64, ()))
    np.testing.assert_array_equal(g(np.int64(8)), [1, 3, 5, 7])
    assert "staged_range" in [n.op for n in g.graph.nodes]


def test_np_asarray_of_a_staged_range_says_to_use_np_stack():
    def f(n):
        return np.asarray(range_(n))

    with pytest.raises(StagingError, match="use np.stack"):
        trace(f, (np.int64, ()))


def test_range_dtype_follows_its_bounds():
    def f(n):
        scope = {"last": np.int32(0)}

        def get_state():
            return (scope["last"],)

        def set_state(values):
            (scope["last"],) = values

        def loop_body(itr):
            scope["last"] = itr

        ag__.for_stmt(range_(n), loop_body, ("last",), opts={}, get_state=get_state, set_state=set_state)
        return scope["last"]

    g = trace(f, (np.int32, ()))
    assert g(np.int32(4)) == 3 and g(np.int32(4)).dtype == np.int32


def test_python_iteration_of_a_staged_range_is_an_error():
    def f(n):
        return sum(x for x in range_(n))

    with pytest.raises(StagingError, match="cannot be iterated by Python while tracing"):
        trace(f, (np.int64, ()))


def test_an_unknown_dimension_as_a_bound_says_to_use_len():
    def f(x):
        return range_(x.shape[0])

    with pytest.raises(StagingError, match=r"ag.range\(0, None, 1\) gets None where a size is expected.*use len\(x\)") as info:
        trace(f, (np.float64, (None, 3)))
    assert str(info.value).startswith(f"{__file__}:")
