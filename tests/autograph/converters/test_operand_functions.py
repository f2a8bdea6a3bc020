"""operand_functions: lazy operands of helpers that run per iteration become defs hoisting moves out."""

import numpy as np

import autograph as ag
from autograph.converters import (
    conditional_expressions,
    control_flow,
    hoisting,
    logical_expressions,
)
from tests.autograph.converters.conversion import assert_converts, transformed
from tests.autograph.equivalence import assert_same, normalize


def test_if_exp_in_a_loop_body_gets_defs_defined_once():
    assert_converts(
        """
        def f(n):
            while n != 1:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
            return n
        """,
        """
        def f(n):
            def if_true():
                return n // 2
            def if_false():
                return 3 * n + 1
            def loop_body():
                nonlocal n
                n = ag__.if_exp(n % 2 == 0, if_true, if_false, 'n % 2 == 0')
            def loop_test():
                return n != 1
            ag__.while_stmt(loop_test, loop_body, ('n',))
            return n
        """,
        conditional_expressions,
        control_flow,
        hoisting,
    )


def test_nested_and_or_in_a_loop_test_all_become_defs():
    out = normalize(transformed(
        "def f(i, a, b):\n    while i < 9 and (a or b):\n        i += 1\n    return i\n",
        logical_expressions,
        control_flow,
        hoisting,
    ))
    assert "lambda" not in out
    assert "return ag__.and_(i < 9, and_right)" in out
    assert "    def and_right():\n        return ag__.or_(a, or_right)" in out


def test_operands_outside_loops_stay_lambdas():
    out = normalize(transformed(
        "def f(x):\n    if x:\n        x = 1 if x > 2 else 2\n    return x\n",
        conditional_expressions,
        control_flow,
        hoisting,
    ))
    assert "ag__.if_exp(x > 2, lambda: 1, lambda: 2, 'x > 2')" in out


def test_operands_inside_a_comprehension_stay_lambdas():
    out = normalize(transformed(
        "def f(xs, n):\n    for i in range(n):\n        xs = [x if x > i else i for x in xs]\n    return xs\n",
        conditional_expressions,
        control_flow,
        hoisting,
    ))
    assert "lambda: x, lambda: i" in out
    assert "def if_true" not in out


def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def first_over(xs, limit):
    i = 0
    total = 0
    while i < len(xs) and not (total > limit or xs[i] < 0):
        total = total + (xs[i] if xs[i] > 0 else -xs[i])
        i += 1
    return total


def body_local_operand(xs):
    out = 0
    for x in xs:
        y = x * 2
        out = out + (y if y > 3 else -y)
    return out


def test_operand_defs_match_python():
    for n in (1, 6, 27):
        assert_same(collatz, n)
    for xs, limit in (([1, -2, 3, 4], 5), ([5, 6, 7], 100), ([], 0)):
        assert_same(first_over, xs, limit)
    assert_same(body_local_operand, [1, 2, 3])
    assert "def if_true():" in ag.to_code(body_local_operand)


def test_operand_defs_in_a_staged_while_match_numpy():
    # the loop test and the if_exp turn into Tensors: the hoisted defs are traced into the while_loop
    for n in (6, 27):
        assert ag.function(collatz)(np.int64(n)) == collatz(n)
    xs = np.array([1, 2, -3, 4])
    assert ag.function(body_local_operand)(xs) == body_local_operand(xs)


def test_operand_defs_in_a_staged_and_match_numpy():
    staged = ag.function(lambda i, limit: _and_loop(i, limit))
    for i, limit in ((0, 5), (3, 2)):
        assert staged(np.int64(i), np.int64(limit)) == _and_loop(i, limit)


def _and_loop(i, limit):
    total = 0
    while i < 10 and total <= limit:
        total += i
        i += 1
    return total


def test_lazy_calls_of_every_origin_are_found():
    # the pipeline searches a function only when some pass wrote a lazy call or the user's code names ag__
    from autograph.pipeline import convert_source

    extra_test = (  # two flags: the extra test is an and_ whose right operand becomes a def
        "def f(xs):\n    for x in xs:\n        for y in xs:\n            if y:\n                return y\n"
        "            if x:\n                break\n    return 0\n"
    )
    written = (  # the user's own call of the operator is lifted like a converted one
        "def f(n):\n    while n > 1:\n        n = ag__.if_exp(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1, 'c')\n"
        "    return n\n"
    )
    assert "def and_right():" in convert_source(extra_test, "t.py", all_functions=True)[0].code
    assert "def if_true():" in convert_source(written, "t.py", all_functions=True)[0].code
