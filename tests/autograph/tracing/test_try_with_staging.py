"""Tensor-dependent control flow inside try/with traces as in TensorFlow (API.md, "Decided details").

The context manager is entered and exited, `finally` runs and `except`
catches while the Function traces; the staged if/loop inside runs whenever
the graph runs. The cases below are written after TensorFlow's own reference
tests of return, break and continue statements in context managers and
try blocks. An exception raised *while* a staged construct traces inside a
block that could catch it is still a StagingError (see within.py).
"""

from __future__ import annotations

import contextlib
import inspect

import numpy as np
import pytest

import autograph as ag
from autograph.errors import StagingError


def _line(fn, text: str) -> int:
    """The file line of the first source line of `fn` that starts with `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if line.strip().startswith(text))


def _same(fn, *calls) -> None:
    """ag.function(fn) returns what fn returns (value and dtype) on each argument tuple, twice."""
    staged = ag.function(fn)
    for args in calls:
        expected = fn(*args)
        for _ in range(2):  # the second call runs the cached trace
            got = staged(*args)
            assert np.asarray(got).dtype == np.asarray(expected).dtype, (fn.__name__, args)
            assert np.array_equal(got, expected), (fn.__name__, args, got, expected)


# -- TensorFlow-style reference cases -------------------------------------------------------


def conditional_in_context_manager(x):
    with contextlib.nullcontext():
        if x > 0:
            return x * x
    return -x


def context_manager_in_conditional(x):
    if x > 0:
        with contextlib.nullcontext():
            return x * x
    else:
        return x


def if_in_try_finally(x):
    try:
        if x > 0:
            x = x * 2
    finally:
        x = x + 1
    return x


def return_in_try_finally(x):
    y = x * 0
    try:
        if x > 0:
            return x * 3
        y = y - 1
    finally:
        y = y + 10  # runs while tracing: both paths of the graph see it
    return x + y


def while_in_try_finally(x):
    try:
        while x < 10:
            x = x + 3
    finally:
        x = x * 2
    return x


def if_in_try_except(x):
    try:
        if x > 0:
            y = x
        else:
            y = -x
    except ValueError:
        y = x * 0
    return y


def break_in_context_manager(x, n):
    total = x * 0
    with contextlib.nullcontext():
        for _ in ag.range(n):
            if total > 5:
                break
            total = total + x
    return total


def continue_in_context_manager(n):
    total = 0
    for i in ag.range(n):
        with contextlib.nullcontext():
            if i % 2 == 0:
                continue
        total = total + i
    return total


def break_in_try_finally(u):
    count = 0
    for v in u:
        try:
            if v < 0:
                break
        finally:
            count = count + 1  # traced into the loop body: counts at every iteration
    return count


def continue_in_try_finally(u):
    total = u[0] * 0
    count = 0
    for v in u:
        try:
            if v < 0:
                continue
            total = total + v
        finally:
            count = count + 1
    return total, count


def nested_with_and_try(x, n):
    with contextlib.nullcontext():
        try:
            i = 0
            while i < n:
                if x > 100:
                    return x
                x = x * 2
                i = i + 1
        finally:
            x = x - 1
    return x


def test_return_in_if_in_a_context_manager():
    _same(conditional_in_context_manager, (np.float64(2.0),), (np.float64(-3.0),))


def test_return_in_a_context_manager_in_an_if():
    _same(context_manager_in_conditional, (np.float64(2.0),), (np.float64(-3.0),))


def test_finally_runs_after_the_staged_if():
    _same(if_in_try_finally, (np.float64(3.0),), (np.float64(-3.0),))


def test_return_inside_try_finally():
    _same(return_in_try_finally, (np.float64(2.0),), (np.float64(-2.0),))


def test_staged_while_in_try_finally():
    _same(while_in_try_finally, (np.float64(1.0),), (np.float64(20.0),))


def test_staged_if_in_try_except_that_raises_nothing():
    _same(if_in_try_except, (np.float32(2.0),), (np.float32(-5.0),))


def test_break_in_a_loop_in_a_context_manager():
    _same(break_in_context_manager, (np.float64(2.0), np.int64(10)), (np.float64(2.0), np.int64(0)))


def test_continue_in_a_context_manager_in_a_loop():
    _same(continue_in_context_manager, (np.int64(7),), (np.int64(0),))


def test_break_in_try_finally_in_a_loop():
    _same(break_in_try_finally, (np.array([1.0, 2.0, -1.0, 3.0]),), (np.array([1.0, 2.0]),))


def test_continue_in_try_finally_in_a_loop():
    _same(continue_in_try_finally, (np.array([1.0, -2.0, 3.0]),), (np.array([-1.0, -2.0]),))


def test_loop_with_return_in_with_and_try():
    _same(nested_with_and_try, (np.float64(3.0), np.int64(3)), (np.float64(30.0), np.int64(5)))


# -- what happens while tracing -----------------------------------------------------------------


class _Counting:
    """A context manager that counts its entries and exits."""

    def __init__(self) -> None:
        self.entered = self.exited = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, *exc) -> None:
        self.exited += 1


def test_the_context_manager_is_entered_and_exited_while_tracing_only():
    manager = _Counting()

    def f(x):
        with manager:
            if x > 0:
                x = x + 1
        return x

    staged = ag.function(f)
    assert float(staged(np.float64(1.0))) == 2.0
    assert float(staged(np.float64(-1.0))) == -1.0
    assert (manager.entered, manager.exited) == (1, 1)  # one trace, two runs


def test_the_statements_traced_in_a_with_are_recorded_on_the_graph():
    def f(x):
        with contextlib.nullcontext():
            if x > 0:
                x = x + 1
        try:
            y = x if x > 1 else -x
        finally:
            pass
        return y

    graph = ag.function(f).get_concrete_function(np.float64(1.0)).graph
    records = [(r.statement, r.keyword, r.block_line, r.origin.line) for r in graph.traced_in_with]
    assert records == [
        ("if", "with", _line(f, "with"), _line(f, "if x > 0")),
        ("conditional expression", "try", _line(f, "try"), _line(f, "y = x if")),
    ]


def test_python_control_flow_inside_try_records_nothing():
    def f(x, n):
        try:
            if n > 0:
                x = x + n
        finally:
            pass
        return x

    graph = ag.function(f).get_concrete_function(np.float64(1.0), 2).graph
    assert graph.traced_in_with == []


def python_flow_in_try(x, n):
    try:
        if n > 0:
            x = x + n
        for i in range(n):
            x = x + i
    except ValueError:
        x = x - 1
    with contextlib.nullcontext():
        while n > 0:
            n -= 1
            x = x * 2
    return x


def test_python_conditions_inside_try_and_with_run_as_python():
    assert float(ag.function(python_flow_in_try)(np.float32(1), 2)) == python_flow_in_try(1.0, 2)


def assert_in_try(x):
    try:
        assert x > 0, "x must be positive"
        y = x * 2
    except AssertionError:  # staged, a failing assert raises when the graph runs: never here
        y = x * 0
    return y


def test_a_staged_assert_in_try_fails_when_the_graph_runs_past_the_handler():
    f = ag.function(assert_in_try)
    assert float(f(np.float32(1))) == 2.0
    with pytest.raises(ag.errors.InvalidArgumentError, match="x must be positive"):
        f(np.float32(-1))


def and_or_in_with(x, y):
    with contextlib.nullcontext():
        both = (x > 0) and (y > 0)
        either = (x > 0) or (y > 0)
    return both, either


def test_and_or_in_with_stage():
    _same(and_or_in_with, (np.float32(1), np.float32(-2)), (np.float32(-1), np.float32(-2)))


# -- still refused: an error while tracing that the block would catch ---------------------------


def if_exp_in_try(x, table):
    try:
        y = table["big"] if x > 10 else x  # traced, the true branch raises KeyError for every x
    except KeyError:
        y = x * 0
    return y


def test_an_error_while_tracing_inside_try_is_refused_even_if_the_handler_catches_it():
    # staged, the handler would catch the KeyError of the branch Python never takes for x = 1
    with pytest.raises(StagingError) as info:
        ag.function(if_exp_in_try)(np.float32(1), {})
    message = str(info.value)
    assert f"{__file__}:{_line(if_exp_in_try, 'y = table')}" in message
    assert f"{__file__}:{_line(if_exp_in_try, 'try:')}" in message
    assert "tensor-dependent conditional expression" in message and "KeyError" in message
    assert if_exp_in_try(1.0, {}) == 1.0  # Python takes the false branch


def if_in_try_except_value_error(x):
    try:
        if x > 0:
            y = x
    except ValueError:  # our StagingError is a ValueError: swallowing it must not hide it
        y = x * 0
    return y


def test_our_error_while_tracing_inside_try_fails_the_trace_even_if_caught():
    with pytest.raises(StagingError, match="'y' is defined only in the true branch"):
        ag.function(if_in_try_except_value_error)(np.float32(1))


def _helper(x):
    if x > 0:
        x = x + 1
    return x


def calls_helper_in_try(x):
    try:
        x = _helper(x)
    except ValueError:
        x = x - 100
    return x


def test_a_helper_called_inside_a_try_stages_its_own_if():
    # the rule is lexical: the caller's try wraps a call, the helper's if lies in no try
    f = ag.function(calls_helper_in_try)
    assert float(f(np.float32(1))) == 2.0
    assert float(f(np.float32(-1))) == -1.0
    assert f.get_concrete_function(np.float32(1)).graph.traced_in_with == []


def test_expressions_in_try_run_as_python_on_python_values():
    assert ag.convert(assert_in_try)(3) == 6
    assert ag.convert(assert_in_try)(-3) == 0
    assert ag.convert(if_exp_in_try)(11, {"big": 5}) == 5
    assert ag.convert(and_or_in_with)(1, 0) == (False, True)


def elementwise_in_try(x, y):
    try:
        root = np.where(x > 0, np.sqrt(np.abs(x)), -x)
        both = (x > 0) & (y > 0)
    except ValueError:
        root, both = x, x > 0
    return root, both


def test_elementwise_choices_in_try_stage_no_cond_and_match_numpy():
    f = ag.function(elementwise_in_try)
    for x, y in ((4.0, -1.0), (-4.0, 1.0), (9.0, 2.0)):
        root, both = f(np.float32(x), np.float32(y))
        expected_root, expected_both = elementwise_in_try(np.float32(x), np.float32(y))
        assert root == expected_root and root.dtype == expected_root.dtype and both == expected_both


def finally_reads_what_a_failed_loop_left(u, k):
    try:
        for v in u:
            k = k + 1
            if v > 0:
                y = v
            k = k + y  # y is bound in the true branch only: the loop's trace fails
    finally:
        j = k * 2  # k still holds the failed loop body's tensor  # noqa: F841
    return k


def test_the_error_of_the_staged_construct_comes_before_what_finally_then_raises():
    # the finally block reads a tensor of the failed trace (a leaked-tensor TypeError); the
    # error that caused it is the one reported
    with pytest.raises(StagingError, match="'y' is defined only in the true branch"):
        ag.function(finally_reads_what_a_failed_loop_left)(np.array([1.0, -1.0]), np.int64(0))
