"""loops: while/for -> ag__.while_stmt/for_stmt; before/after and equivalence."""

import numpy as np
import pytest

import autograph as ag
from autograph.converters import control_flow, directives
from runtime.ir.errors import StagingError
from tests.autograph.converters.conversion import assert_converts, transformed
from tests.autograph.equivalence import assert_same, normalize


def test_guide_while_loop():
    assert_converts(
        """
        def f(x):
            while np.sum(x) > 1:
                ag.print(x)
                x = np.tanh(x)
            return x
        """,
        """
        def f(x):
            def loop_body():
                nonlocal x
                ag.print(x)
                x = np.tanh(x)
            ag__.while_stmt(lambda: np.sum(x) > 1, loop_body, ('x',))
            return x
        """,
        control_flow,
    )


def test_for_loop_target_is_parameter_and_options():
    assert_converts(
        """
        def f(n):
            s = 0
            for i in range(n):
                ag.set_loop_options(maximum_iterations=10)
                t = i * 2
                s += t
            return s
        """,
        """
        def f(n):
            s = 0
            def loop_body(i):
                nonlocal s
                t = i * 2
                s += t
            ag__.for_stmt(range(n), loop_body, ('s',), opts={'maximum_iterations': 10})
            return s
        """,
        directives,
        control_flow,
    )


def test_tuple_target_and_target_used_after():
    assert_converts(
        """
        def f(pairs):
            for a, b in pairs:
                pass
            return a
        """,
        """
        def f(pairs):
            def loop_body(itr):
                nonlocal a
                a, b = itr
                pass
            a: object
            ag__.for_stmt(pairs, loop_body, ('a',), opts={'iterate_names': 'a, b'})
            return a
        """,
        control_flow,
    )


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def matrix_sum(rows):
    total = 0
    for row in rows:
        for value in row:
            total += value
    return total


def test_equivalent():
    assert_same(collatz, 27)
    assert_same(matrix_sum, [[1, 2], [3, 4]])
    assert_same(matrix_sum, [])


def test_body_of_a_loop_with_one_break_returns_its_flag():
    from autograph.converters import break_statements, hoisting

    out = normalize(transformed(
        "def f(xs):\n    for x in xs:\n        if x:\n            break\n    return x\n",
        break_statements,
        control_flow,
        hoisting,
    ))
    body = out[out.index("def loop_body"):].splitlines()
    assert body[4] == "        return break_", out
    assert "ag__.for_stmt(xs, loop_body, (" in out and "extra_test=lambda: ag__.not_(break_)" in out


def test_python_loop_never_asks_the_extra_test_when_the_body_returns_its_flag():
    # the flags an extra test reads are False when the loop starts, so it holds then
    from runtime.operators.for_stmt import for_stmt

    asked, ran = [], []

    def extra_test():
        asked.append(len(ran))
        return True

    def loop_body(x):
        ran.append(x)
        return x == 2  # the break flag: set once x is 2

    for_stmt([1, 2, 3, 4], loop_body, (), extra_test=extra_test, opts={})
    assert (asked, ran) == ([], [1, 2])


def test_python_loop_asks_the_extra_test_after_a_body_that_returns_nothing():
    from runtime.operators.for_stmt import for_stmt

    asked, ran = [], []

    def extra_test():
        asked.append(len(ran))
        return len(ran) < 2

    for_stmt([1, 2, 3, 4], ran.append, (), extra_test=extra_test, opts={})
    assert (asked, ran) == ([1, 2], [1, 2])


def test_every_flag_an_extra_test_reads_is_set_false_before_the_loop():
    # what lets for_stmt skip the extra test before the first iteration
    from autograph.converters import break_statements, return_statements

    out = normalize(transformed(
        "def f(xs, ys):\n"
        "    for x in xs:\n"
        "        for y in ys:\n"
        "            if y:\n"
        "                return y\n"
        "            if x:\n"
        "                break\n"
        "    return 0\n",
        return_statements,
        break_statements,
    ))
    lines = [line.strip() for line in out.splitlines()]
    assert lines[1] == "do_return = False", out
    inner = lines.index("for y in ys:")
    assert lines[inner - 1].startswith("break_") and lines[inner - 1].endswith(" = False"), out


def break_on_total(x, items):
    total = x * 0
    for v in items:
        total = total + v
        if total > x:
            break
    return total


def break_or_return(xs, limit):
    for i, x in enumerate(xs):
        if x > limit:
            break
        if x < 0:
            return -i
    return len(xs)


def test_reported_break_flags_match_python():
    for x, items in ((0, [1, 2, 3]), (3, [1, 2, 3]), (100, [1, 2]), (0, [])):
        assert_same(break_on_total, x, items)
    for xs, limit in (([1, 5, -1], 3), ([1, -1, 5], 3), ([], 0), ([1, 2], 9)):
        assert_same(break_or_return, xs, limit)


def test_break_flag_set_by_a_staged_if_in_a_python_loop():
    # the flag the body returns is a Tensor: the next iteration raises as before; none left, no error
    with pytest.raises(StagingError, match="a tensor-dependent break"):
        ag.function(break_on_total)(np.int64(2), [1, 2, 3])
    assert ag.function(break_on_total)(np.int64(2), [5]) == 5


def test_break_in_a_staged_for_matches_numpy():
    # a staged loop ignores what the body returns and stops on its extra test
    xs = np.array([1, 2, 3, 4])
    for x in (0, 4, 100):
        assert ag.function(break_on_total)(np.int64(x), xs) == break_on_total(np.int64(x), xs)


def test_loop_in_try_leaves_no_placeholder_for_a_swallowed_exception():
    """A handler may swallow an exception out of the loop: `a` is declared, not bound, so
    `return a` raises as in Python."""
    assert_converts(
        """
        def f(pairs):
            try:
                for a, b in pairs:
                    pass
            except ValueError:
                pass
            return a
        """,
        """
        def f(pairs):
            try:
                def loop_body(itr):
                    nonlocal a
                    a, b = itr
                    pass
                a: object
                ag__.for_stmt(pairs, loop_body, ('a',), opts={'iterate_names': 'a, b'}, within=('try', 3))
            except ValueError:
                pass
            return a
        """,
        control_flow,
    )


def test_nested_tuple_target_keeps_its_inner_parentheses_and_stages():
    def weighted(rows):
        total = np.float64(0)
        for i, (a, b) in enumerate(rows):
            total += a * b + i
        return total

    assert "{'iterate_names': 'i, (a, b)'}" in ag.to_code(weighted)
    rows = np.arange(6.0).reshape(3, 2)
    assert ag.function(weighted)(rows) == weighted(rows) == 29.0


def rest_after_break(xs):
    items = iter(xs)
    for x in items:
        if x == 2:
            break
    return list(items)


def rest_after_return(log):
    def numbers():
        for i in range(5):
            log.append(i)
            yield i

    for x in numbers():
        if x == 1:
            return x
    return -1


def rest_after_two_flags(xs, limit):
    items = iter(xs)
    for x in items:
        if x > limit:
            break
        if x < 0:
            return list(items)
    return list(items)


def test_a_python_loop_left_by_break_or_return_takes_no_further_item():
    assert_same(rest_after_break, [1, 2, 3, 4])
    assert_same(rest_after_break, [1])
    original, converted = [], []
    assert ag.convert(rest_after_return)(converted) == rest_after_return(original)
    assert converted == original == [0, 1]
    for xs, limit in (([1, 5, 6], 3), ([1, -1, 5], 3), ([], 0), ([1, 2], 9)):
        assert_same(rest_after_two_flags, xs, limit)


def first_pair_until_zero(pairs):
    try:
        for a, b in pairs:
            if b == 0:
                raise ValueError(a)
    except ValueError:
        pass
    return a


def test_a_swallowed_exception_leaves_the_loop_variable_as_python_does():
    assert_same(first_pair_until_zero, [(1, 0), (2, 3)])  # bound before the raise
    assert_same(first_pair_until_zero, [(1, 2), (3, 4)])
    assert_same(first_pair_until_zero, [])  # never bound: UnboundLocalError in both
