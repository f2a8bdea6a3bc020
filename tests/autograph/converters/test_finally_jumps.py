"""finally_jumps: a jump out of a `finally:` block drops the exception in flight."""

import gast

from autograph.converters import finally_jumps
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


def test_a_break_in_finally_catches_and_raises_again_unless_it_runs():
    assert_converts(
        """
        def f(xs):
            for x in xs:
                try:
                    g(x)
                except ValueError:
                    pass
                finally:
                    if x < 0:
                        break
            return x
        """,
        """
        def f(xs):
            for x in xs:
                finally_error = None
                try:
                    try:
                        g(x)
                    except ValueError:
                        pass
                except BaseException as caught:
                    finally_error = caught
                finally:
                    if x < 0:
                        finally_error = None
                        break
                if finally_error is not None:
                    raise finally_error
            return x
        """,
        finally_jumps,
    )


def test_jumps_that_stay_inside_the_finally_block_leave_the_try_alone():
    source = "def f(xs):\n    try:\n        g()\n    finally:\n        for x in xs:\n            break\n"
    fn = gast.parse(source).body[0]
    assert finally_jumps.jumps_out(fn.body[0].finalbody) == []
    assert_converts(source, source, finally_jumps)


def swallowing(n):
    out = []
    for i in range(n):
        try:
            if i == 1:
                raise ValueError(i)
            out.append(i)
        finally:
            if i < 3:
                continue  # noqa: B012 - the jump that drops the exception is the subject
            out.append(-i)
    return out


def returning(n):
    try:
        if n > 0:
            raise KeyError(n)
    finally:
        if n > 1:
            return n  # noqa: B012 - the jump that drops the exception is the subject
        print("finally", n)
    return 0


def cancelling(n):
    out = []
    for i in range(n):
        try:
            if i % 2:
                continue
            if i == 4:
                break
            out.append(i)
        finally:
            if i == 3:
                break  # noqa: B012 - cancels the pending continue
            if i == 4:
                continue  # noqa: B012 - cancels the pending break
    return out


def finally_raises_unless_it_returns(a, b):
    try:
        return 1
    finally:
        if a:
            pass
        elif b:
            return 2  # noqa: B012 - replaces the pending return
        raise ValueError("finally raises")  # noqa: B012 - replaces the pending return


def test_a_pending_return_leaves_the_finally_blocks_own_guards_alone():
    for a, b in ((True, False), (False, False), (False, True)):
        assert_same(finally_raises_unless_it_returns, a, b)


def loop_in_handler_then_finally_returns(x, xs):
    try:
        if x:
            raise KeyError(x)
    except KeyError:
        for v in xs:
            if v:
                break
    finally:
        return x  # noqa: B012 - drops the exception in flight


def test_a_break_flag_of_a_loop_inside_the_try_is_not_pending_at_its_finally():
    # the loop's flag is bound only when the handler runs: setting it aside read it unbound
    for x, xs in ((0, []), (1, []), (1, [0, 1]), (1, [0])):
        assert_same(loop_in_handler_then_finally_returns, x, xs)


def test_jumps_in_finally_match_python():
    for n in (0, 2, 4):
        assert_same(swallowing, n)
    for n in (0, 1, 2):
        assert_same(returning, n)
    for n in range(7):
        assert_same(cancelling, n)
