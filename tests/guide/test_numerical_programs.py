"""Small numerical programs as users write them: staged results equal NumPy's, bit for bit.

Each program runs unconverted on NumPy values and through ag.function; the
outputs must match in value, dtype and structure (dict key order included).
They mix what the guide shows one at a time: staged loops with break,
continue and return, TensorArrays, nested conds, structured returns.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

import autograph as ag

Stats = collections.namedtuple("Stats", "mean spread")


def classify(xs):
    pos, neg = 0, 0
    for x in xs:
        if x > 0:
            pos += 1
            if x > 100:
                return -1, -1  # a tuple returned from inside the staged loop
        elif x < 0:
            neg += 1
    return pos, neg


def evens(x):
    ta = ag.TensorArray(x.dtype, size=0, dynamic_size=True, element_shape=())
    j = 0
    for i in ag.range(len(x)):
        if x[i] % 2 != 0:
            continue
        ta = ta.write(j, x[i])
        j += 1
    return ta.stack()


def bisect_sqrt2(lo, hi):
    steps = 0
    while hi - lo > 1e-12 and steps < 100:
        mid = (lo + hi) / 2
        if mid * mid > 2.0:
            hi = mid
        else:
            lo = mid
        steps += 1
    return {"root": lo, "steps": steps, "error": hi - lo}


def first_match(m, target):
    for i in ag.range(m.shape[0]):
        for j in ag.range(m.shape[1]):
            if m[i, j] == target:
                return {"row": i, "col": j}
    return {"row": -1, "col": -1}


def streaming_logsumexp(xs):
    m, s = -np.inf, 0.0
    for x in xs:
        if x > m:
            s = s * np.exp(m - x) + 1.0
            m = x
        else:
            s = s + np.exp(x - m)
    return Stats(m + np.log(s), np.max(xs) - np.min(xs))


def newton_sqrt(a, tol=1e-12):
    x = a
    steps = 0
    while True:  # left only by the return
        nx = 0.5 * (x + a / x)
        steps += 1
        if np.abs(nx - x) < tol:
            return nx, steps
        x = nx


CASES = [
    (classify, (np.array([1.0, -2.0, 3.0, 0.0]),)),
    (classify, (np.array([1.0, -2.0, 300.0, 0.0]),)),
    (evens, (np.array([1, 2, 4, 5, 6]),)),
    (evens, (np.array([1, 3], np.int32),)),
    (bisect_sqrt2, (np.float64(0.0), np.float64(2.0))),
    (first_match, (np.arange(12).reshape(3, 4), np.int64(6))),
    (first_match, (np.arange(12).reshape(3, 4), np.int64(60))),
    (streaming_logsumexp, (np.array([1.0, 3.0, 2.0, 5.0]),)),
    (newton_sqrt, (np.float64(2.0),)),
    (newton_sqrt, (np.float64(1e6),)),
]


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def _as_returned(value):
    """What a Function gives back for an eager result: Python numbers as NumPy scalars."""
    if isinstance(value, dict):
        return {k: _as_returned(v) for k, v in value.items()}
    if isinstance(value, tuple):
        items = [_as_returned(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return np.asarray(value)[()] if isinstance(value, (bool, int, float)) else value


@pytest.mark.parametrize("program, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_staged_result_equals_the_unconverted_one(program, args):
    expected = _as_returned(program(*args))
    assert _same(ag.function(program)(*args), expected)
    assert _same(ag.convert(program)(*args), program(*args))
