"""loops: while/for -> ag__.while_stmt/for_stmt; before/after and equivalence."""

from autograph.converters import control_flow, directives
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


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
            def get_state():
                return (x,)
            def set_state(vars_):
                nonlocal x
                (x,) = vars_
            def loop_body():
                nonlocal x
                ag.print(x)
                x = np.tanh(x)
            def loop_test():
                return np.sum(x) > 1
            ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('x',), {})
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
            def get_state():
                return (s,)
            def set_state(vars_):
                nonlocal s
                (s,) = vars_
            def loop_body(i):
                nonlocal s
                t = i * 2
                s += t
            ag__.for_stmt(range(n), None, loop_body, get_state, set_state, ('s',), {'iterate_names': 'i', 'maximum_iterations': 10})
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
            def get_state():
                return (a,)
            def set_state(vars_):
                nonlocal a
                (a,) = vars_
            def loop_body(itr):
                nonlocal a
                a, b = itr
                pass
            a = ag__.Undefined('a')
            ag__.for_stmt(pairs, None, loop_body, get_state, set_state, ('a',), {'iterate_names': 'a, b'})
            if ag__.is_undefined(a):
                del a
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
