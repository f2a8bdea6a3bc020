"""conditional_returns: an if whose branches only return becomes a return of a conditional expression."""

import ast

import numpy as np
import pytest

import autograph as ag
from autograph.converters import conditional_expressions, conditional_returns
from tests.autograph.converters.conversion import assert_converts, transformed
from tests.autograph.equivalence import assert_same


def test_an_elif_chain_of_returns_is_one_return():
    assert_converts(
        "def sign(x):\n    if x > 0:\n        return 1\n    elif x < 0:\n        return -1\n    return 0\n",
        "def sign(x):\n    return 1 if x > 0 else -1 if x < 0 else 0\n",
        conditional_returns,
    )


def test_early_returns_in_a_row_and_a_bare_return_chain_too():
    assert_converts(
        "def f(a, b):\n    if a:\n        return 1\n    if b:\n        return\n    else:\n        return 3\n",
        "def f(a, b):\n    return 1 if a else None if b else 3\n",
        conditional_returns,
    )


def test_the_chain_calls_if_exp_with_return_for_its_text():
    text = transformed("def f(x):\n    if x > 0:\n        return x\n    return -x\n",
                       conditional_returns, conditional_expressions)
    assert "return ag__.if_exp(x > 0,\n        lambda: x,\n        lambda: -x, 'return')" in text


@pytest.mark.parametrize("source", [
    # a branch that does more than return
    "def f(x):\n    if x:\n        x += 1\n        return x\n    return 0\n",
    # nothing returned when the if is false: the function's end
    "def f(x):\n    if x:\n        return 1\n",
    # a value a lambda would change
    "def f(x):\n    if x:\n        return (y := 1)\n    return 2\n",
    # inside a try, whose conditional expressions catching marks before this pass
    "def f(x):\n    try:\n        if x:\n            return 1\n        return 2\n    finally:\n        pass\n",
])
def test_other_ifs_are_left_alone(source):
    text = transformed(source, conditional_returns)
    assert not any(isinstance(node, ast.IfExp) for node in ast.walk(ast.parse(text)))
    # the code after an early return may move into the if's else branch, and nothing else changes
    assert text.replace("else:\n", "").replace(" ", "") == transformed(source).replace(" ", "")


def test_a_lone_return_after_an_if_that_may_return_is_copied_into_its_branches():
    assert_converts(
        "def f(x, y):\n    if x > 0:\n        if y > 0:\n            return 1\n        return 4\n"
        "    elif x < 0:\n        if y > 0:\n            return 2\n    return 3\n",
        "def f(x, y):\n    return (1 if y > 0 else 4) if x > 0 else (2 if y > 0 else 3) if x < 0 else 3\n",
        conditional_returns,
    )
    code = str(ag.to_code(nested_returns))
    assert "do_return" not in code and "retval" not in code and code.count("    return ") == 1
    converted, staged = ag.convert(nested_returns), ag.function(nested_returns)
    for x in (-1, 0, 1):
        for y in (-1, 1):
            assert converted(x, y) == staged(np.int64(x), np.int64(y)) == nested_returns(x, y)


def nested_returns(x, y):
    if x > 0:
        if y > 0:
            return 1
        return 4
    elif x < 0:
        if y > 0:
            return 2
    return 3


def test_statements_after_the_last_return_are_kept():
    # never run, but `y = 2` still makes `y` a local of f
    assert_converts(
        "def f(x):\n    if x:\n        return 1\n    return 2\n    y = 2\n",
        "def f(x):\n    return 1 if x else 2\n    y = 2\n",
        conditional_returns,
    )


def test_chains_in_loops_and_in_branches_are_taken():
    assert_converts(
        "def f(xs):\n    for x in xs:\n        if x:\n            return x\n        return -1\n"
        "    if xs:\n        return 0\n",
        "def f(xs):\n    for x in xs:\n        return x if x else -1\n    if xs:\n        return 0\n",
        conditional_returns,
    )


def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


def first_positive(xs):
    for x in xs:
        if x > 0:
            return x
        elif x == 0:
            continue
        if x < -5:
            return "small"
        return None
    return "empty"


def inverse(x):
    if x == 1:
        return 0
    return 1 / x  # <- divides


def test_python_mode_is_exact():
    for x in (-2, 0, 3):
        assert_same(sign, x)
    for xs in ([], [0, 0], [0, -7], [0, -1], [-1, 4], [4]):
        assert_same(first_positive, xs)
    assert_same(inverse, 1)
    assert_same(inverse, 0)


def test_an_error_in_a_returned_value_names_its_own_line():
    with pytest.raises(ZeroDivisionError) as info:
        ag.convert(inverse)(0)
    note = "\n".join(info.value.__notes__)
    assert "return 1 / x  # <- divides" in note


def test_staged_the_chain_is_one_cond_with_the_returned_value():
    staged = ag.function(sign)
    for x in (np.float32(-2.5), np.float32(0.0), np.float32(4.0)):
        assert staged(x) == sign(x)
    assert staged.experimental_get_tracing_count() == 1


def test_staged_errors_speak_of_the_if_and_the_function_return():
    @ag.function
    def maybe(x):
        if x > 0:  # <- if
            return x
        return None

    with pytest.raises(ag.errors.StagingError) as info:
        maybe(np.float32(1.0))
    message = str(info.value)
    assert "the function returns a float32[] Tensor in the true branch and None in the false branch" in message
    assert "tensor-dependent if at" in message and "# <- if" in message
