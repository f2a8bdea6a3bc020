"""Tensor-dependent if/while/for inside a try or with block: a StagingError naming both lines."""

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
        ag.function(fn)(arg)
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
