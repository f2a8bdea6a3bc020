"""conditionals: if/elif/else -> ag__.if_stmt; before/after and equivalence."""

import numpy as np

import autograph as ag
from autograph.converters import control_flow
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


def test_if_else_output_and_undefined_init():
    assert_converts(
        """
        def f(x):
            if x > 0:
                y = x
            else:
                y = -x
            return y
        """,
        """
        def f(x):
            def if_body():
                nonlocal y
                y = x
            def else_body():
                nonlocal y
                y = -x
            y: object
            ag__.if_stmt(x > 0, if_body, else_body, ('y',))
            return y
        """,
        control_flow,
    )


def test_if_in_with_leaves_no_placeholder_for_a_swallowed_exception():
    """y is declared, not bound: an exception out of a branch that a context manager
    swallows leaves it unbound, as in Python, with no check around the call."""
    assert_converts(
        """
        def f(x):
            with suppress(ValueError):
                if x > 0:
                    y = int(x)
                else:
                    y = -x
            return y
        """,
        """
        def f(x):
            with suppress(ValueError):
                def if_body():
                    nonlocal y
                    y = int(x)
                def else_body():
                    nonlocal y
                    y = -x
                y: object
                ag__.if_stmt(x > 0, if_body, else_body, ('y',), within=('with', 3))
            return y
        """,
        control_flow,
    )


def test_defined_before_needs_no_init_and_locals_stay_local():
    assert_converts(
        """
        def f(x):
            y = 0
            if x > 0:
                t = x * 2
                y = t
            return y
        """,
        """
        def f(x):
            y = 0
            def if_body():
                nonlocal y
                t = x * 2
                y = t
            ag__.if_stmt(x > 0, if_body, None, ('y',))
            return y
        """,
        control_flow,
    )


def test_branch_reading_and_writing_a_dead_name_carries_it_beyond_nouts():
    assert_converts(
        """
        def f(x, n):
            if x:
                n += 1
                print(n)
        """,
        """
        def f(x, n):
            def if_body():
                nonlocal n
                n += 1
                print(n)
            ag__.if_stmt(x, if_body, None, ('n',), nouts=0)
        """,
        control_flow,
    )


def test_global_names_declared_global_in_branches():
    text = """
        def f(x):
            global COUNT
            if x:
                COUNT = 1
        """
    assert_converts(
        text,
        """
        def f(x):
            global COUNT
            def if_body():
                global COUNT
                COUNT = 1
            ag__.if_stmt(x, if_body, None)
        """,
        control_flow,
    )


def classify(x):
    if x > 10:
        kind = "big"
    elif x > 0:
        kind = "small"
    else:
        kind = "negative"
        x = -x
    return kind, x


def test_elif_equivalent():
    for x in (20, 5, -3):
        assert_same(classify, x)


def test_if_with_only_pass_has_no_if_body():
    assert_converts(
        """
        def f(x):
            y = 0
            if x > 0:
                pass
            else:
                y = -x
            return y
        """,
        """
        def f(x):
            y = 0
            def else_body():
                nonlocal y
                y = -x
            ag__.if_stmt(x > 0, None, else_body, ('y',))
            return y
        """,
        control_flow,
    )


def only_else(x):
    y = 0
    if x > 0:
        pass
    else:
        y = -x
    return y


def test_if_with_only_pass_matches_python():
    for x in (3, -2, 0):
        assert_same(only_else, x)


def skip_odd(xs):
    total = xs[0] * 0
    for x in xs:
        if x % 2 == 1:
            continue
        total += x
    return total


def test_if_with_no_body_in_a_staged_loop_matches_numpy():
    xs = np.array([1, 2, 3, 4, 6])
    assert "ag__.if_stmt(x % 2 == 1, None, else_body" in ag.to_code(skip_odd)
    assert_same(skip_odd, [1, 2, 3, 4, 6])
    assert ag.function(skip_odd)(xs) == skip_odd(xs)


def print_sign(x):
    if x > 0:
        print("positive")
    else:
        print("not positive")
    return x


def test_stateless_staged_if_passes_no_state_functions(capsys):
    assert "ag__.if_stmt(x > 0, if_body, else_body)\n" in ag.to_code(print_sign)
    assert ag.function(print_sign)(np.int64(3)) == 3
    assert capsys.readouterr().out == "positive\nnot positive\n"  # both branches traced once
