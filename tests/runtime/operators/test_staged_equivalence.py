"""Staged control flow computes what Python computes: programs run both ways.

Each program is ordinary Python over NumPy values; `ag.function` converts
and stages it (every loop and branch below depends on a tensor), and the
result must equal the original's on the same inputs, for random inputs
including empty arrays (loops that run zero times).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag


def sum_evens_until_big(xs):
    total = 0
    for x in xs:
        if x % 2 == 1:
            continue
        if total > 20:
            break
        total += x
    return total


def count_pairs_below(xs, limit):
    count = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] + xs[j] < limit:
                count += 1
    return count


def kadane(xs):
    best = 0
    current = 0
    for x in xs:
        current = max(current + x, 0)
        best = max(best, current)
    return best


def gcd(a, b):
    a = abs(a)
    b = abs(b)
    while b != 0:
        a, b = b, a % b
    return a


def classify(xs):
    neg, zero, pos = 0, 0, 0
    for x in xs:
        if x < 0:
            neg += 1
        elif x == 0:
            zero += 1
        else:
            pos += 1
    return neg, zero, pos


def first_index_of(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            return i
    return -1


def binary_search(sorted_xs, target):
    lo = 0
    hi = len(sorted_xs)
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def running_max_doubled(xs):
    out = []
    best = -1000
    for x in xs:
        best = max(best, x)
        out.append(best * 2)
    return np.sum(np.stack(out)) if len(xs) > 0 else 0


def bounded_walk(start, steps):
    position = start
    i = 0
    while i < steps and (position > -10 and position < 10):
        position = position + 3 if position % 2 == 0 else position - 5
        i += 1
    return position, i


def digit_sum_with_else(n):
    total = 0
    n = abs(n)
    while n > 0:
        total += n % 10
        n = n // 10
        if total > 30:
            break
    else:
        total = total * 100
    return total


INTS = st.integers(-20, 20)
ARRAYS = st.lists(INTS, max_size=7).map(lambda v: np.array(v, dtype=np.int64))
CASES = [
    (sum_evens_until_big, st.tuples(ARRAYS)),
    (count_pairs_below, st.tuples(ARRAYS, INTS.map(np.int64))),
    (kadane, st.tuples(ARRAYS)),
    (gcd, st.tuples(INTS.map(np.int64), INTS.map(np.int64))),
    (classify, st.tuples(ARRAYS)),
    (first_index_of, st.tuples(ARRAYS, INTS.map(np.int64))),
    (binary_search, st.tuples(ARRAYS.map(np.sort), INTS.map(np.int64))),
    (running_max_doubled, st.tuples(ARRAYS)),
    (bounded_walk, st.tuples(INTS.map(np.int64), st.integers(0, 30).map(np.int64))),
    (digit_sum_with_else, st.tuples(st.integers(-10**6, 10**6).map(np.int64))),
]


def _values(result):
    if isinstance(result, tuple):
        return tuple(int(v) for v in result)
    return int(result)


@pytest.mark.parametrize("program, inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_staged_program_matches_python(program, inputs):
    staged = ag.function(program, input_signature=None, reduce_retracing=True)

    @settings(max_examples=15, deadline=None)
    @given(inputs)
    def check(args):
        assert _values(staged(*args)) == _values(program(*args))

    check()
    assert staged.experimental_get_tracing_count() <= 3
