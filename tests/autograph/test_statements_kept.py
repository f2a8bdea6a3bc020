"""Converted functions keep Python semantics for less common statements: try, with, match, classes."""

from __future__ import annotations

import contextlib

import pytest

from tests.autograph.equivalence import assert_same


def while_true(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i

def ret_in_try(x):
    try:
        if x > 0:
            return "pos"
        y = 1 / x
    finally:
        print("finally")
    return y

def loop_in_with(xs):
    with contextlib.nullcontext():
        total = 0
        for x in xs:
            total += x
    return total

def dict_iter(d):
    keys = []
    for k in d:
        keys.append(k)
    out = {}
    for k, v in d.items():
        out[v] = k
    return keys, out

def gen_iter(n):
    total = 0
    for x in (i * 2 for i in range(n)):
        if x > 4:
            total += x
    return total

def nested_def_in_loop(n):
    fs = []
    for i in range(n):
        def f(j=i):
            return j * 2
        fs.append(f)
    return [f() for f in fs]

def match_stmt(x):
    match x:
        case 1:
            r = "one"
        case [a, b]:
            r = a + b
        case _:
            r = None
    return r

def unpack_star(xs):
    first, *rest = xs
    total = 0
    for r in rest:
        total += r
    return first, total

def class_in_func(v):
    class P:
        def __init__(self, v):
            self.v = v
    p = P(v)
    if p.v > 1:
        p.v = 0
    return p.v

def multiple_assign(n):
    a = b = 0
    while a < n:
        a, b = a + 1, b + a
    return a, b

def attr_and_subscript(xs):
    d = {"k": 0}
    for x in xs:
        d["k"] += x
    return d

def lambda_in_loop(xs):
    total = 0
    for x in xs:
        g = lambda y: y + x  # noqa: E731, B023 - a closure over the loop variable, called at once
        total = g(total)
    return total

def if_without_else_nested(x):
    r = 0
    if x > 0:
        if x > 5:
            r = 2
        else:
            r = 1
    return r

def nonlocal_user(n):
    count = 0
    def inc():
        nonlocal count
        count += 1
    for _ in range(n):
        inc()
    return count


MORE_CASES = [
    (while_true, (5,)),
    (ret_in_try, (2,)),
    (ret_in_try, (-2,)),
    (loop_in_with, ([1, 2],)),
    (dict_iter, ({"a": 1, "b": 2},)),
    (gen_iter, (5,)),
    (nested_def_in_loop, (3,)),
    (match_stmt, (1,)),
    (match_stmt, ([2, 3],)),
    (match_stmt, ("z",)),
    (unpack_star, ([1, 2, 3],)),
    (class_in_func, (3,)),
    (multiple_assign, (4,)),
    (attr_and_subscript, ([1, 2],)),
    (lambda_in_loop, ([1, 2, 3],)),
    (if_without_else_nested, (7,)),
    (if_without_else_nested, (3,)),
    (nonlocal_user, (4,)),
]


@pytest.mark.parametrize(("func", "args"), MORE_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_more_constructs(func, args):
    assert_same(func, *args)
