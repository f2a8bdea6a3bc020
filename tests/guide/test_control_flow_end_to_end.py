"""Guide section "AutoGraph transformations": more control flow through ag.function.

and/or/not, nested structures, zip and enumerate, while/else, nested loops,
loop options, TensorArrays in a cond and early returns, each traced and run.
"""

from __future__ import annotations

import numpy as np

import autograph as ag


@ag.function
def python_test_then_tensor(t):
    x = 0
    while x < 10:
        x = x + t
    return x


@ag.function
def logic(a, b):
    return (a > 0 and b > 0) or not (a < -5)


@ag.function
def nested_structures(xs):
    acc = {"total": 0.0, "count": 0}
    for x in xs:
        acc = {"total": acc["total"] + x, "count": acc["count"] + 1}
    return acc["total"] / acc["count"]


@ag.function
def zipped(a, b):
    s = 0
    for x, y in zip(a, b):
        s += x * y
    return s


@ag.function
def while_else(n):
    i = 0
    while i < n:
        if i == 3:
            break
        i += 1
    else:
        i = -1
    return i


@ag.function
def nested_loops(n):
    total = 0
    for i in ag.range(n):
        j = 0
        while j < i:
            total += j
            j += 1
    return total


def test_more_control_flow_end_to_end():
    assert python_test_then_tensor(np.int64(3)) == 12
    assert [bool(logic(np.int64(a), np.int64(b))) for a in (-6, 1) for b in (-1, 1)] == [
        (a > 0 and b > 0) or not (a < -5) for a in (-6, 1) for b in (-1, 1)]
    assert nested_structures(np.array([1.0, 5.0, 3.0])) == 3.0
    assert zipped(np.array([1, 2, 3]), np.array([4, 5, 6, 7])) == 32
    assert (while_else(np.int64(2)), while_else(np.int64(10))) == (-1, 3)
    assert nested_loops(np.int64(5)) == sum(j for i in range(5) for j in range(i))


@ag.function
def grow(n):
    x = np.zeros(1)
    i = 0
    while i < n:
        ag.set_loop_options(shape_invariants=[(x, (None,))], maximum_iterations=3)
        x = np.concatenate([x, x[:1] + 1.0])
        i += 1
    return x


@ag.function
def rank_grows(n):
    x = np.zeros(())
    for _ in ag.range(n):
        ag.set_loop_options(shape_invariants=[(x, None)])
        x = np.stack([x, x])
    return x


@ag.function
def tensor_array_in_a_cond(n):
    ta = ag.TensorArray(np.int64, size=2)
    if n > 0:
        ta = ta.write(0, n)
    else:
        ta = ta.write(0, -n)
    ta = ta.write(1, n)
    return ta.stack()


@ag.function
def early_return(x):
    if x > 0:
        return x
    return -x


@ag.function
def first_negative_index(xs):
    i = 0
    while i < len(xs):
        if xs[i] < 0:
            break
        i += 1
    return i


def test_loop_options_tensor_arrays_in_conds_and_early_returns():
    np.testing.assert_array_equal(grow(np.int64(5)), [0.0, 1.0, 1.0, 1.0])
    assert rank_grows(np.int64(2)).shape == (2, 2)
    np.testing.assert_array_equal(tensor_array_in_a_cond(np.int64(-2)), [2, -2])
    assert (early_return(np.int64(-3)), early_return(np.int64(4))) == (3, 4)
    assert first_negative_index(np.array([1, 2, -1, 3])) == 2
    assert first_negative_index(np.array([1])) == 1


@ag.function
def return_in_else(x):
    if x < 0:
        x = x * 2
    else:
        return x
    return -x


@ag.function
def first_non_negative(xs):
    for x in xs:
        if x < 0:
            continue
        else:
            return x
    return np.int64(-1)


def test_return_bound_only_in_the_false_branch():
    assert (return_in_else(np.int64(-3)), return_in_else(np.int64(3))) == (6, 3)
    assert first_non_negative(np.array([-1, -2, 5])) == 5
    assert first_non_negative(np.array([-1])) == -1


@ag.function
def weighted(xs):
    s = 0
    for x, w in zip(xs, [1, 2, 3]):
        s += x * w
    return s


@ag.function
def enumerate_from_one(xs):
    s = 0
    for i, x in enumerate(xs, 1):
        s += i * x
    return s


def test_zip_with_a_python_list_and_enumerate_with_a_start():
    assert weighted(np.array([1, 1, 1, 1])) == 6
    assert enumerate_from_one(np.array([1, 1, 1])) == 6
