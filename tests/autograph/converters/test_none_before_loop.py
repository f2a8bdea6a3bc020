"""none_before_loop: loop variables that may be None before the loop and are bound before any read."""

from __future__ import annotations

import autograph as ag


def _loop_call(fn) -> str:
    (call,) = [line.strip() for line in str(ag.to_code(fn)).splitlines() if "while_stmt(" in line or "for_stmt(" in line]
    return call


def last_of(u):
    best = None
    for v in u:
        best = v * 2
    return best


def last_of_while(n):
    best = None
    i = 0
    while i < n:
        best = i
        i += 1
    return best


def running_max(u):
    best = None
    for v in u:
        if best is None or v > best:
            best = v
    return best


def read_by_the_test(n):
    best = None
    i = 0
    while best is None or i < n:
        best = i
        i += 1
    return best


def counted(u):
    total = 0
    for v in u:
        total = v
    return total


def test_a_name_none_before_the_loop_and_bound_first_in_it_is_named():
    assert "'bound_before_read': ('best',)" in _loop_call(last_of)
    assert "'bound_before_read': ('best',)" in _loop_call(last_of_while)


def test_a_name_read_before_it_is_bound_is_not_named():
    assert "bound_before_read" not in _loop_call(running_max)
    assert "bound_before_read" not in _loop_call(read_by_the_test)  # the while's test reads it


def test_a_name_that_is_never_none_is_not_named():
    assert "bound_before_read" not in _loop_call(counted)
