"""return_statements: single exit only where needed; before/after and equivalence."""

from autograph.converters import return_statements
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


def test_plain_trailing_return_stays():
    source = """
        def f(x):
            y = x + 1
            return y
        """
    assert_converts(source, source, return_statements)


def test_early_return_takes_rest_as_else():
    assert_converts(
        """
        def f(x):
            if x > 0:
                return x
            return -x
        """,
        """
        def f(x):
            if x > 0:
                retval = x
            else:
                retval = -x
            return retval
        """,
        return_statements,
    )


def test_early_return_before_elif_takes_rest_into_the_chain():
    # the rest follows the elif chain's last test as its else: no flag, no guard
    assert_converts(
        """
        def f(x, lo, hi):
            if x < lo:
                return lo
            elif x > hi:
                return hi
            return x
        """,
        """
        def f(x, lo, hi):
            if x < lo:
                retval = lo
            elif x > hi:
                retval = hi
            else:
                retval = x
            return retval
        """,
        return_statements,
    )


def clip_then_scale(x, lo, hi):
    if x < lo:
        return lo
    elif x > hi:
        x = hi
    x = x * 2
    return x


def test_rest_runs_after_an_else_that_falls_through():
    for x in (-1, 1, 5):
        assert_same(clip_then_scale, x, 0, 3)


def test_return_in_loop_uses_flag():
    assert_converts(
        """
        def f(xs):
            for x in xs:
                if x > 3:
                    return x
            return None
        """,
        """
        def f(xs):
            do_return = False
            for x in xs:
                if x > 3:
                    retval = x
                    do_return = True
            if not do_return:
                retval = None
                do_return = True
            return retval
        """,
        return_statements,
    )


def test_falling_off_the_end_returns_none():
    assert_converts(
        """
        def f(x):
            if x:
                return 1
            print(x)
        """,
        """
        def f(x):
            retval = None
            if x:
                retval = 1
            else:
                print(x)
            return retval
        """,
        return_statements,
    )


def test_docstring_stays_first():
    assert_converts(
        """
        def f(xs):
            \"\"\"The first item over 3.\"\"\"
            for x in xs:
                if x > 3:
                    return x
        """,
        """
        def f(xs):
            \"\"\"The first item over 3.\"\"\"
            do_return = False
            retval = None
            for x in xs:
                if x > 3:
                    retval = x
                    do_return = True
            return retval
        """,
        return_statements,
    )


def test_while_true_without_break_never_falls_off_the_end():
    """Its test stops on the flag alone, and no `retval = None` is needed after it:
    a staged if returning inside it would otherwise have None on its other side."""
    assert_converts(
        """
        def f(x):
            while True:
                x = x * 2
                if x > 10:
                    return x
        """,
        """
        def f(x):
            do_return = False
            while not do_return:
                x = x * 2
                if x > 10:
                    retval = x
                    do_return = True
            return retval
        """,
        return_statements,
    )


def doubling(x, stop_early):
    while True:
        x = x * 2
        if stop_early:
            break
        if x > 10:
            return x
    return -x


def test_while_true_with_break_falls_through_like_python():
    assert_same(doubling, 3, False)
    assert_same(doubling, 3, True)


def search(xs, target):
    i = 0
    while i < len(xs):
        if xs[i] == target:
            return i
        i += 1
    if target is None:
        return -2
    return -1


def test_equivalent():
    for target in (3, 7, None):
        assert_same(search, [1, 3, 5], target)


def test_a_lone_return_after_an_if_that_may_return_goes_into_both_branches():
    assert_converts(
        """
        def f(x, y):
            if x > 0:
                y += 1
                if y > 0:
                    return y
            return y - x
        """,
        """
        def f(x, y):
            if x > 0:
                y += 1
                if y > 0:
                    retval = y
                else:
                    retval = y - x
            else:
                retval = y - x
            return retval
        """,
        return_statements,
    )


def test_the_loop_flag_starts_in_the_branch_that_holds_the_loop():
    assert_converts(
        """
        def f(n):
            if n < 2:
                return False
            k = 2
            while k * k <= n:
                if n % k == 0:
                    return False
                k += 1
            return True
        """,
        """
        def f(n):
            if n < 2:
                retval = False
                do_return = True
            else:
                k = 2
                do_return = False
                while not do_return and k * k <= n:
                    if n % k == 0:
                        retval = False
                        do_return = True
                    else:
                        k += 1
                if not do_return:
                    retval = True
                    do_return = True
            return retval
        """,
        return_statements,
    )


def logged(x):
    log = []
    if x > 0:
        if x > 5:
            return log.append("big") or log
    elif x < -5:
        log.append("small")
    return log.append("rest") or log


def prime(n):
    if n < 2:
        return False
    k = 2
    while k * k <= n:
        if n % k == 0:
            return False
        k += 1
    return True


def test_copied_returns_and_a_branch_local_flag_stay_exact():
    import numpy as np

    import autograph as ag

    for x in (-7, -1, 0, 3, 9):
        assert_same(logged, x)
    for n in range(12):
        assert_same(prime, n)
        assert ag.function(prime)(np.int64(n)) == prime(n)
    code = str(ag.to_code(prime))
    assert code.index("do_return = False") > code.index("def else_body")


def in_a_try(x, y):
    try:
        if x > 0:
            if y > 0:
                return 1
        return x and y
    finally:
        print("done")


def test_a_lone_return_in_a_try_is_not_copied():
    # catching marked the `and` of the return by identity: a copy would lose the mark
    import autograph as ag

    for x in (-1, 0, 2):
        for y in (-1, 0, 3):
            assert_same(in_a_try, x, y)
    code = str(ag.to_code(in_a_try))
    assert code.count("ag__.and_(") == 1 and "ag__.and_(x, lambda: y, within=('try'" in code
