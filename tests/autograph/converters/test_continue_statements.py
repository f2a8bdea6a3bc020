"""continue_statements: before/after and Python-mode equivalence."""

from autograph.converters import continue_statements
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


def test_continue_ending_an_if_moves_the_rest_into_its_else():
    assert_converts(
        """
        def f(xs):
            total = 0
            for x in xs:
                if x < 0:
                    continue
                total += x
            return total
        """,
        """
        def f(xs):
            total = 0
            for x in xs:
                continue_ = False
                if x < 0:
                    continue_ = True
                else:
                    total += x
            return total
        """,
        continue_statements,
    )


def test_nested_continue_becomes_flag_reset_each_iteration_and_guard():
    assert_converts(
        """
        def f(xs):
            total = 0
            for x in xs:
                if x < 0:
                    if x < -5:
                        continue
                    total -= 1
                total += x
            return total
        """,
        """
        def f(xs):
            total = 0
            for x in xs:
                continue_ = False
                if x < 0:
                    if x < -5:
                        continue_ = True
                    else:
                        total -= 1
                if not continue_:
                    total += x
            return total
        """,
        continue_statements,
    )


def nested_continue_sum(xs):
    total = 0
    for x in xs:
        if x < 0:
            if x < -5:
                continue
            total -= 1
        total += x
    return total


def test_nested_continue_matches_python():
    assert_same(nested_continue_sum, [3, -1, -7, 4, -6, 2])


def odd_sum(n):
    total = 0
    i = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        total += i
    return total


def test_while_continue_equivalent():
    assert_same(odd_sum, 9)


def test_continue_ending_an_else_moves_the_rest_into_the_body():
    assert_converts(
        """
        def f(xs):
            total = 0
            for x in xs:
                if x > 0:
                    total += 1
                else:
                    continue
                total += x
            return total
        """,
        """
        def f(xs):
            total = 0
            for x in xs:
                continue_ = False
                if x > 0:
                    total += 1
                    total += x
                else:
                    continue_ = True
            return total
        """,
        continue_statements,
    )


def else_continue_sum(xs):
    total = 0
    for x in xs:
        if x > 0:
            total += 1
        else:
            continue
        total += x
    return total


def test_else_continue_matches_python():
    assert_same(else_continue_sum, [1, -2, 3, 0])
