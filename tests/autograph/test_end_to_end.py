"""Converted functions with every construct behave like the originals on Python/NumPy values."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.autograph.equivalence import assert_same

COUNTER = 0


def helper(x):
    return x * 2


def loops_and_branches(xs, limit):
    total = 0
    for i, x in enumerate(xs):
        if x < 0:
            continue
        elif x > limit:
            break
        total += x * i
    else:
        total = -total
    return total


def while_else(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
        if steps > 50:
            break
    else:
        steps += 1000
    return steps


def early_returns(x):
    if x > 10:
        return "big"
    elif x > 5:
        return "medium"
    for i in range(x):
        if i * i > x:
            return i
    return None


def nested_loops(n):
    found = []
    for i in range(n):
        for j in range(n):
            if i * j == 6:
                found.append((i, j))
                break
            if j > i:
                continue
        if len(found) > 1:
            return found
    return found


def logic(a, b, c):
    x = a and b or c
    y = not a
    z = a < b < c
    w = b if a else c
    return x, y, z, w


def chained_with_call(a, b):
    return a < helper(b) < 100


def prints(n):
    i = 0
    while i < n:
        print("step", i)
        i += 1
    print("done")


def asserts(x):
    assert x > 0, f"x must be positive, got {x}"
    assert x < 100
    return x


def raises(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x


def augmented_and_del(x):
    y = x
    y += 1
    y *= 3
    z = y
    del y
    return z


def walrus(xs):
    if (n := len(xs)) > 2:
        return n
    return -n


def star_args(*args, **kwargs):
    def inner(a, b=0, *rest, c=1, **kw):
        return a + b + sum(rest) + c + sum(kw.values())

    return inner(*args, **kwargs)


def comprehensions(xs):
    squares = [helper(x) for x in xs if x > 0]
    pairs = {x: x if x > 1 else -x for x in xs}
    return squares, pairs, sum(x for x in xs)


def uses_global(n):
    global COUNTER
    for i in range(n):
        if i % 2:
            COUNTER += i
    return COUNTER


def try_with(x):
    try:
        if x == 0:
            raise ZeroDivisionError("zero")
        y = 10 / x
    except ZeroDivisionError as exc:
        y = str(exc)
    finally:
        x = -1
    return x, y


def nested_function(n):
    scale = 3

    def step(v):
        if v > 2:
            return v * scale
        return v

    total = 0
    for i in range(n):
        total += step(i)
    return total


def maybe_undefined(flag):
    if flag:
        y = 1
    return y


def list_building(n):
    out = []
    i = 0
    while i < n:
        out.append(i * i)
        i += 1
    return out


def loop_options(n):
    total = 0
    for i in range(n):
        ag.set_loop_options(maximum_iterations=100)
        total += i
    return total


def numpy_loop(x):
    while np.sum(x) > 1:
        x = np.tanh(x)
    return x


def tuple_targets(pairs):
    total = 0
    for (a, b), c in pairs:
        total += a * b + c
    return total, a


def loop_var_used_after(n):
    for i in range(n):  # noqa: B007 - the loop variable is read after the loop
        pass
    return i


CASES = [
    (loops_and_branches, ([1, -2, 3, 4], 10)),
    (loops_and_branches, ([1, -2, 30, 4], 10)),
    (while_else, (27,)),
    (while_else, (6,)),
    (early_returns, (20,)),
    (early_returns, (7,)),
    (early_returns, (4,)),
    (early_returns, (0,)),
    (nested_loops, (5,)),
    (nested_loops, (8,)),
    (logic, (1, 2, 3)),
    (logic, (0, 2, 3)),
    (logic, (3, 2, 1)),
    (chained_with_call, (1, 5)),
    (chained_with_call, (20, 5)),
    (prints, (3,)),
    (asserts, (5,)),
    (raises, (3,)),
    (raises, (-3,)),
    (augmented_and_del, (4,)),
    (walrus, ([1, 2, 3],)),
    (walrus, ([1],)),
    (star_args, (1, 2, 3, 4)),
    (comprehensions, ([-1, 2, 3],)),
    (try_with, (0,)),
    (try_with, (4,)),
    (nested_function, (6,)),
    (maybe_undefined, (True,)),
    (list_building, (5,)),
    (loop_options, (5,)),
    (numpy_loop, (np.array([3.0, 2.0]),)),
    (tuple_targets, ([((1, 2), 3), ((4, 5), 6)],)),
    (loop_var_used_after, (4,)),
]


@pytest.mark.parametrize(("func", "args"), CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_same_behaviour(func, args):
    assert_same(func, *args)


def test_star_args_with_keywords():
    assert_same(star_args, 1, 2, 3, c=5, d=7)


def test_globals_stay_live():
    global COUNTER
    COUNTER = 0
    converted = ag.convert(uses_global)
    assert converted(4) == 4
    assert COUNTER == 4
    COUNTER = 100
    assert converted(2) == 101


def test_maybe_undefined_raises_like_python():
    with pytest.raises((UnboundLocalError, NameError)):
        maybe_undefined(False)
    converted = ag.convert(maybe_undefined)
    result = None
    with pytest.raises((UnboundLocalError, NameError)):
        result = converted(False)
        bool(result)


def test_loop_over_empty_keeps_python_error():
    with pytest.raises(UnboundLocalError):
        loop_var_used_after(0)
    with pytest.raises((UnboundLocalError, NameError)):
        bool(ag.convert(loop_var_used_after)(0))


def test_assert_messages():
    # pytest rewrites asserts in this module, so compare with the message Python itself gives
    converted = ag.convert(asserts)
    with pytest.raises(AssertionError) as info:
        converted(-5)
    # the message is Python's; the user's line comes as a note (pytest's match reads both)
    assert str(info.value) == "x must be positive, got -5"
    with pytest.raises(AssertionError):
        converted(500)


def nested_return_is_its_own(i, x):
    def h0(p):
        r = 3
        return int(x) + r + p

    if h0(i) >= i:
        return i // 1, 4
    return None


def test_nested_function_returns_are_not_lowered_by_the_outer_one():
    assert_same(nested_return_is_its_own, -1, 1.0)
    assert_same(nested_return_is_its_own, 100, -500.0)


def deleted_in_branch(c, loops):
    for k in range(loops):
        if c:
            i = 1
            del i
        elif k > 5:
            i = 3
    if c:
        j = 1
        del j
    return i if loops else j


@pytest.mark.parametrize("c, loops", [(True, 1), (False, 1), (True, 0), (False, 0)])
def test_name_a_branch_deletes_stays_unbound_on_every_path(c, loops):
    """`del` inside a branch: whether the branch ran or not, the later read fails as in Python
    (NameError, UnboundLocalError's base, where a helper reads it: docs/differences.md)."""
    with pytest.raises(UnboundLocalError):
        deleted_in_branch(c, loops)
    with pytest.raises(NameError):
        ag.convert(deleted_in_branch)(c, loops)


def test_a_closure_reading_a_name_bound_after_a_return_raises_as_python():
    def enclosing(flag):
        def get():
            return last

        if flag:
            return get()
        last = 1
        return get()

    converted = ag.convert(enclosing)
    assert converted(False) == 1
    with pytest.raises(NameError, match="free variable 'last'"):
        enclosing(True)
    with pytest.raises(NameError, match="free variable 'last'"):  # not Undefined('last')
        converted(True)


def test_a_closure_reading_a_loop_name_before_its_first_binding_raises_as_python():
    def show_previous(xs):
        def show():
            return last

        out = []
        for x in xs:
            out.append(show())
            last = x
        return out

    with pytest.raises(NameError, match="free variable 'last'"):
        ag.convert(show_previous)([1, 2])


def test_a_closure_reading_a_staged_loop_name_after_the_loop_sees_its_value():
    def doubled_last(x):
        def get():
            return s

        for v in x:
            s = v * 2
        return get()

    assert ag.function(doubled_last)(np.arange(3.0)) == 4.0
