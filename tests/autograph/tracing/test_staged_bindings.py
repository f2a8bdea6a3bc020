"""Names bound on some paths only, staged: `del` in both branches of an if, the search idiom
`for ... else` / `while ... else` with a tensor-dependent break, and a loop variable that is
None before a staged loop (issue 21, items 2, 6 and 8)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from autograph.errors import InvalidArgumentError, StagingError


def _line(fn, text: str) -> int:
    """The file line of the first source line of `fn` that starts with `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if line.strip().startswith(text))


def _same(fn, *calls) -> None:
    """ag.function(fn) returns what fn returns (value and dtype) on each argument tuple, twice."""
    staged = ag.function(fn)
    for args in calls:
        expected = fn(*args)
        for _ in range(2):
            got = staged(*args)
            assert np.asarray(got).dtype == np.asarray(expected).dtype, (fn.__name__, args, got, expected)
            assert np.array_equal(got, expected), (fn.__name__, args, got, expected)


# -- del in both branches (item 2) ---------------------------------------------------------------


def deleted_in_both_branches(x):
    gone = x * 2
    if x > 0:
        del gone
    else:
        del gone
    return gone


def test_a_name_deleted_in_both_branches_of_a_staged_if_is_a_staging_error():
    # it used to return the placeholder Undefined('gone') as the Function's result
    with pytest.raises(StagingError) as info:
        ag.function(deleted_in_both_branches)(np.float64(1.0))
    message = str(info.value)
    assert "'gone' is deleted in both branches of a tensor-dependent if" in message
    assert f"{__file__}:{_line(deleted_in_both_branches, 'if x > 0')}" in message
    assert "Undefined" not in message


def test_python_mode_raises_what_python_raises_for_a_name_deleted_in_both_branches():
    for x in (1.0, -1.0):
        with pytest.raises(UnboundLocalError) as expected:
            deleted_in_both_branches(x)
        with pytest.raises(UnboundLocalError) as converted:
            ag.convert(deleted_in_both_branches)(x)
        assert str(converted.value) == str(expected.value)


def deleted_then_bound_again(x):
    y = x * 2
    if x > 0:
        del y
    else:
        del y
    y = x + 1
    return y


def deleted_in_both_branches_of_a_tuple(x):
    a, b = x, x * 3
    if x > 0:
        del a
        b = b + 1
    else:
        del a
    return b


def test_a_name_deleted_in_both_branches_and_never_read_again_is_fine():
    _same(deleted_then_bound_again, (np.float64(1.0),), (np.float64(-1.0),))
    _same(deleted_in_both_branches_of_a_tuple, (np.float64(1.0),), (np.float64(-1.0),))


# -- for/while ... else with a tensor-dependent break (item 6) ------------------------------------


def first_negative(x, n):
    for i in ag.range(n):
        if x[i] < 0:
            idx = i
            break
    else:
        idx = -1
    return idx


def first_negative_while(x):
    i = 0
    while i < x.shape[0]:
        if x[i] < 0:
            idx = i
            break
        i += 1
    else:
        idx = -1
    return idx


def first_big_value(x):
    for v in x:
        if v > 0:
            if v > 2:
                found = v
                break
    else:
        found = x[0] * 0
    return found


def test_for_else_search_idiom_with_a_tensor_break():
    x = np.array([1.0, -2.0, 3.0, -4.0])
    _same(first_negative, (x, np.int64(4)), (x, np.int64(1)), (x, np.int64(0)))


def test_while_else_search_idiom_with_a_tensor_break():
    _same(first_negative_while, (np.array([1.0, -2.0, 3.0]),), (np.array([1.0, 2.0]),), (np.zeros(0),))


def test_search_idiom_with_the_break_in_a_nested_if():
    _same(first_big_value, (np.array([1.0, 3.0, -3.0]),), (np.array([1.0, 1.0, -3.0]),))


def first_negative_without_else(x, n):
    for i in ag.range(n):
        if x[i] < 0:
            idx = i
            break
    return idx  # unbound when no element is negative


def read_on_the_path_that_goes_on(x, n):
    for i in ag.range(n):
        if x[i] < 0:
            idx = i
            break
        y = idx  # unbound in Python at the first non-negative element  # noqa: F841
    else:
        idx = -1
    return idx


def test_a_search_that_may_leave_the_name_unbound_is_still_refused():
    # no silent zeros: the name is read on a path where Python raises
    x = np.array([1.0, -2.0])
    with pytest.raises(StagingError, match="'idx' is defined only in the true branch"):
        ag.function(first_negative_without_else)(x, np.int64(2))
    with pytest.raises(StagingError, match="'idx' is unbound where the false branch"):
        ag.function(read_on_the_path_that_goes_on)(x, np.int64(2))


# -- a loop variable that is None before a staged loop (item 8) ------------------------------------


def last_double_while(n):
    best = None
    i = 0
    while i < n:
        best = i * 2.0
        i += 1
    return best


def last_double_for(u):
    best = None
    for v in u:
        best = v * 2
    return best


def test_none_before_a_staged_loop_that_binds_it_first():
    _same(last_double_while, (np.int64(3),), (np.int64(1),))
    _same(last_double_for, (np.array([1.0, 3.0, 2.0]),))


def test_none_before_a_staged_loop_that_runs_zero_times_fails_when_the_graph_runs():
    f = ag.function(last_double_for)
    assert float(f(np.array([1.0, 5.0]))) == 10.0
    with pytest.raises(InvalidArgumentError, match=r"'best' \(None before the loop\).*ran zero times"):
        f(np.zeros(0))


def running_max(u):
    best = None
    for v in u:
        if best is None or v > best:  # reads best: its None matters at the first iteration
            best = v
    return best


def test_none_read_inside_the_loop_is_still_refused():
    with pytest.raises(StagingError, match="'best' is None before a staged for loop"):
        ag.function(running_max)(np.array([1.0, 3.0, 2.0]))
