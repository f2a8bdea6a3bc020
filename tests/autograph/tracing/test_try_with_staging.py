"""Tensor-dependent if/while/for, assert, a if c else b, and/or inside a try or with block: a StagingError naming both lines."""

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


def _refused(fn, arg, statement: str, block: str) -> str:
    with pytest.raises(StagingError) as info:
        ag.function(fn)(*(arg if isinstance(arg, tuple) else (arg,)))
    message = str(info.value)
    assert f"{__file__}:{_line(fn, statement)}" in message
    assert f"{__file__}:{_line(fn, block)}" in message
    assert "only sees what happens while tracing" in message
    return message


def if_in_try_except(x):
    try:
        if x > 0:
            x = x + 1
    except ValueError:  # a StagingError is a ValueError: swallowing it must not hide it
        x = x - 1
    return x


def while_in_try_finally(x):
    try:
        while x < 10:
            x = x + 1
    finally:
        x = x * 2
    return x


def for_in_with(x):
    total = x * 0
    with contextlib.nullcontext():
        for i in ag.range(x):
            total = total + i
    return total


def for_in_else_of_try_finally(x):
    try:
        pass
    except ValueError:
        pass
    else:
        for v in x:
            x = x + v
    finally:
        pass
    return x


def test_if_in_try_except_is_refused_even_if_the_handler_catches_it():
    message = _refused(if_in_try_except, np.float32(1), "if x > 0", "try:")
    assert "tensor-dependent if" in message and "try block" in message


def test_while_in_try_finally_is_refused():
    message = _refused(while_in_try_finally, np.float32(1), "while x < 10", "try:")
    assert "Move the try block outside the Function" in message


def test_for_in_with_is_refused():
    message = _refused(for_in_with, np.int32(3), "for i in", "with contextlib")
    assert "tensor-dependent for" in message and "with block" in message


def test_for_in_else_of_try_with_finally_is_refused():
    _refused(for_in_else_of_try_finally, np.ones(3, np.float32), "for v in x", "try:")


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


def staged_if_after_try(x):
    try:
        y = x + 1
    finally:
        pass
    if y > 0:
        y = y * 2
    return y


def test_staged_if_outside_the_try_is_fine():
    assert float(ag.function(staged_if_after_try)(np.float32(1))) == 4.0


def assert_in_try(x):
    try:
        assert x > 0, "x must be positive"
        y = x * 2
    except AssertionError:  # staged, a failing assert raises when the graph runs: never here
        y = x * 0
    return y


def if_exp_in_try(x, table):
    try:
        y = table["big"] if x > 10 else x  # traced, the true branch raises KeyError for every x
    except KeyError:
        y = x * 0
    return y


def and_in_with(x, y):
    with contextlib.nullcontext():
        both = (x > 0) and (y > 0)
    return both


def or_in_try_finally(x, y):
    try:
        either = (x > 0) or (y > 0)
    finally:
        pass
    return either


def chain_in_try(x):
    try:
        inside = 0 < x < 1
    except ValueError:
        inside = None
    return inside


def test_assert_in_try_is_refused():
    message = _refused(assert_in_try, np.float32(1), "assert x > 0", "try:")
    assert "tensor-dependent assert" in message and "InvalidArgumentError" in message


def test_conditional_expression_in_try_is_refused():
    # staged, the handler would catch the KeyError of the branch Python never takes for x = 1
    with pytest.raises(StagingError) as info:
        ag.function(if_exp_in_try)(np.float32(1), {})
    message = str(info.value)
    assert f"{__file__}:{_line(if_exp_in_try, 'y = table')}" in message
    assert "tensor-dependent conditional expression" in message and "np.where" in message
    assert if_exp_in_try(1.0, {}) == 1.0  # Python takes the false branch


def test_and_or_and_chains_in_try_or_with_are_refused():
    message = _refused(and_in_with, (np.float32(1), np.float32(2)), "both =", "with contextlib")
    assert "tensor-dependent 'and'" in message and "(a) & (b)" in message
    message = _refused(or_in_try_finally, (np.float32(1), np.float32(2)), "either =", "try:")
    assert "tensor-dependent 'or'" in message
    _refused(chain_in_try, np.float32(0.5), "inside = 0", "try:")


def test_expressions_in_try_run_as_python_on_python_values():
    assert ag.convert(assert_in_try)(3) == 6
    assert ag.convert(assert_in_try)(-3) == 0
    assert ag.convert(if_exp_in_try)(11, {"big": 5}) == 5
    assert ag.convert(and_in_with)(1, 0) is False
    assert ag.convert(or_in_try_finally)(0, 2) is True
    assert ag.convert(chain_in_try)(0.5) is True


def and_in_if_test_in_try(x, y):
    try:
        if x > 0 and y > 0:
            x = x + y
    except ValueError:
        x = x - 1
    return x


def test_and_in_the_test_of_an_if_names_the_if():
    message = _refused(and_in_if_test_in_try, (np.float32(1), np.float32(2)), "if x > 0 and", "try:")
    assert "tensor-dependent if" in message


def lambda_made_in_try(x):
    try:
        clip = lambda v: v if v > 0 else v * 0  # noqa: E731
    except ValueError:
        clip = None
    return clip(x)


def test_a_lambda_made_in_a_try_stages_where_it_is_called():
    f = ag.function(lambda_made_in_try)
    assert float(f(np.float32(2))) == 2.0
    assert float(f(np.float32(-2))) == 0.0


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
