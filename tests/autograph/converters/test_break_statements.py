"""break_statements: before/after and Python-mode equivalence."""

from autograph.converters import break_statements
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


def test_break_in_for_becomes_flag_and_rest_moves_into_else():
    assert_converts(
        """
        def f(xs):
            for x in xs:
                if x:
                    break
                y = x
            else:
                y = 0
            return y
        """,
        """
        def f(xs):
            break_ = False
            for x in xs:
                if x:
                    break_ = True
                else:
                    y = x
            if not break_:
                y = 0
            return y
        """,
        break_statements,
    )


def test_break_in_while_joins_the_test():
    assert_converts(
        """
        def f(n):
            while n > 0:
                n -= 1
                if n == 3:
                    break
            return n
        """,
        """
        def f(n):
            break_ = False
            while not break_ and n > 0:
                n -= 1
                if n == 3:
                    break_ = True
            return n
        """,
        break_statements,
    )


def test_loop_without_break_keeps_else_after_it():
    assert_converts(
        """
        def f(n):
            while n > 0:
                n -= 1
            else:
                n = 10
            return n
        """,
        """
        def f(n):
            while n > 0:
                n -= 1
            n = 10
            return n
        """,
        break_statements,
    )


def nested(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            pairs.append((i, j))
        else:
            pairs.append("never")
        if i > 3:
            break
    return pairs


def test_nested_loops_equivalent():
    assert_same(nested, 6)
    assert_same(nested, 0)


def break_in_inner_else(xs):
    count = 0
    for x in xs:
        w = 0
        while w < 1:
            w += 1
        else:
            count += x
            if count > 3:
                break
    return count


def test_break_in_an_inner_loops_else_belongs_to_the_outer_loop():
    assert_same(break_in_inner_else, [1, 2, 3, 4])
