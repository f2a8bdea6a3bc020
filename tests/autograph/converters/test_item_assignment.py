"""Item assignment (`x[i] = v`, `x[i] += v`, slices, masks) on the function's own arrays is staged as a
functional update; writes that NumPy would make through an alias are refused with a StagingError."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.errors import StagingError


def histogram(x, idx, lo, hi, mask, k):
    out = np.zeros(6)
    for i in ag.range(len(x)):
        out[idx[i]] += x[i]
    out[lo:hi] = out[lo:hi] * 2
    out[mask] -= 1
    out[np.array([0, 2])] = k
    if k > 0:
        out[5] = out[4] + out[3]
    return out


def running_max(x):
    best = np.full(np.shape(x), -np.inf)
    best[0] = x[0]
    for i in range(1, len(x)):
        best[i] = np.maximum(best[i - 1], x[i])
    return best


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(0, 6), st.integers(0, 6), st.floats(-3, 3), st.integers(0, 2**16))
def test_staged_updates_equal_numpy(n, lo, hi, k, seed):
    rng = np.random.default_rng(seed)
    args = (rng.normal(size=n), rng.integers(0, 6, n), np.int64(lo), np.int64(hi), rng.random(6) > 0.5, np.float64(k))
    np.testing.assert_allclose(ag.function(histogram)(*args), histogram(*args), rtol=1e-12)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=1, max_size=8))
def test_a_staged_loop_fills_an_array(values):
    x = np.array(values)
    np.testing.assert_array_equal(ag.function(running_max)(x), running_max(x))
    spec = ag.TensorSpec((None,), np.float64)
    np.testing.assert_array_equal(ag.function(running_max).get_concrete_function(spec)(x), running_max(x))


def test_converted_code_rebinds_the_name():
    code = ag.to_code(histogram)
    assert "out = ag__.setitem(out, idx[i], lambda: x[i], '+', None)" in code
    assert "out = ag__.setitem(out, ag__.slice_(lo, hi, None), out[lo:hi] * 2)" in code
    assert "out = ag__.setitem(out, mask, 1, '-', None)" in code


def test_writes_in_a_staged_branch_happen_only_when_it_runs():
    def f(t):
        out = np.zeros(3)
        out[2] = 7.0
        if t > 0:
            out[0] = 1.0
        else:
            out[1] = 1.0
        return out

    for t in (1.0, -1.0):
        np.testing.assert_array_equal(ag.function(f)(np.float64(t)), f(t))


def test_dtype_rules_are_numpys():
    def truncates(x):
        out = np.zeros(3, np.int64)
        out[0] = x
        return out

    def refuses(x):
        out = np.zeros(3, np.int64)
        out[0:2] += x
        return out

    def item_truncates(x):
        out = np.zeros(3, np.int64)
        out[0] += x
        return out

    np.testing.assert_array_equal(ag.function(truncates)(np.float64(1.7)), truncates(1.7))
    np.testing.assert_array_equal(ag.function(item_truncates)(np.float64(1.7)), item_truncates(np.float64(1.7)))
    with pytest.raises(TypeError, match="same_kind"):
        refuses(np.float64(1.5))
    with pytest.raises(StagingError, match="cannot cast the float64 result to the array's dtype int64"):
        ag.function(refuses)(np.float64(1.5))


def parameter(x):
    x[0] = 1.0
    return x


def copied_parameter(x):
    x = x.copy()
    x[0] = 1.0
    return x


def another_name(x):
    y = x * 2
    z = y
    y[0] = 5.0
    return z


def a_view(x):
    y = x + 0
    row = y[1:]
    y[1] = 5.0
    return row


def bound_by_a_loop(m):
    total = np.zeros(2)
    for row in m:
        row[0] = 0.0
        total = total + row
    return total


def stored(x, box):
    y = x * 1
    box.append(y)
    y[0] = 9.0
    return y


@pytest.mark.parametrize("fn, match", [
    (parameter, r"'x', a parameter .*x = x.copy\(\)"),
    (another_name, r"'y', which line \d+ shares with another name"),
    (a_view, r"'y', which line \d+ shares"),
    (bound_by_a_loop, r"'row', which line \d+ binds by a loop"),
])
def test_writes_through_aliases_are_refused(fn, match):
    x = np.arange(4.0).reshape(2, 2) if fn is bound_by_a_loop else np.arange(4.0)
    with pytest.raises(StagingError, match=match):
        ag.function(fn)(x)
    python = fn(x.copy())  # Python mode is NumPy's, aliases included
    assert python is not None


def test_refusal_names_the_line_and_python_mode_writes_through():
    line = another_name.__code__.co_firstlineno + 3
    with pytest.raises(StagingError, match=rf"test_item_assignment.py:{line}:"):
        ag.function(another_name)(np.arange(3.0))
    np.testing.assert_array_equal(ag.convert(another_name)(np.arange(3.0)), [5.0, 2.0, 4.0])
    with pytest.raises(StagingError, match="shares with another name"):
        ag.function(stored)(np.arange(3.0), [])


def test_copy_first_makes_it_the_functions_own():
    x = np.arange(3.0)
    np.testing.assert_array_equal(ag.function(copied_parameter)(x), [1.0, 1.0, 2.0])
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])


def test_dicts_lists_and_globals_are_left_to_python():
    table = {}

    def f(x):
        d = {"a": x}
        d["a"] = d["a"] + 1
        items = [x, x]
        items[1] = x * 3
        table["seen"] = 1
        return d["a"], items[1]

    assert ag.function(f)(np.float64(1.0)) == (2.0, 3.0)
    assert table == {"seen": 1}


def item_of(x):
    y = x * 1
    first = y[0]
    y[0] = first + 1
    return y, first


def test_binding_an_item_is_a_copy_of_a_vector_but_a_view_of_a_matrix():
    vector, matrix = np.arange(3.0), np.arange(4.0).reshape(2, 2)
    for got, want in zip(ag.function(item_of)(vector), item_of(vector)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(StagingError, match=r"'y', whose row line \d+ binds to a name"):
        ag.function(item_of)(matrix)


def test_a_list_key_is_an_index_array_as_in_numpy():
    def f(z, v):
        z = z.copy()
        z[[0, 1, 1]] = v
        z[[2]] += 1.0
        return z

    args = (np.zeros(3), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(ag.function(f)(*args), f(*args))
