"""Item assignment on a Python list or dict in a staged if's branches or a staged loop's body.

Both branches of a staged if are traced, one after the other, so a write made
in place would leave what the first branch stored in the list the second one
is traced with. Written in a staged branch or body, the function's own list or
dict is copied and the copy carried; one that may be shared is refused.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.errors import StagingError


def list_branches(x, k):
    s = [x * 0.0, x * 0.0]
    if k == 1:
        s[0] = x + 1
    else:
        s[1] = x
    return s[0] + 10 * s[1]


def dict_branches(x, k):
    s = {"a": x * 0.0, "b": x * 0.0}
    if k == 1:
        s["a"] = x + 1
    else:
        s["b"] = x
    return s["a"] + 10 * s["b"]


def same_items(x, k):
    s = [x, x * 2]
    if k == 1:
        s[0] = x + 1
        s[1] += x
    else:
        s[0] = x - 1
        s[1] -= x
    return s[0] + 10 * s[1]


def python_values(x):
    s = [0, 0]
    if x > 0:
        s[0] = 1
    else:
        s[1] = 2
    return s[0] + 10 * s[1]


def nested(x, k):
    s = {"a": 0, "b": 0, "c": x * 0}
    if k > 0:
        if k > 1:
            s["a"] = 1
        else:
            s["b"] = 2
    else:
        s["c"] = x
    return s["a"] + 10 * s["b"] + 100 * s["c"]


def whole_list(x, k):
    s = list([x, x])
    if k == 1:
        s[0] = x * 3
    return s


@pytest.mark.parametrize("fn", [list_branches, dict_branches, same_items])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_branches_assigning_items_equal_python(fn, k):
    x = np.float64(2.0)
    assert ag.function(fn)(x, np.int64(k)) == fn(x, k)


@pytest.mark.parametrize("x", [-1.0, 1.0])
def test_python_values_stored_by_one_branch_are_not_seen_by_the_other(x):
    assert ag.function(python_values)(np.float64(x)) == python_values(x)


@pytest.mark.parametrize("k", [0, 1, 2])
def test_nested_ifs(k):
    x = np.float64(3.0)
    assert ag.function(nested)(x, np.int64(k)) == nested(x, k)


@pytest.mark.parametrize("k", [0, 1])
def test_the_merged_list_is_returned(k):
    x = np.float64(2.0)
    got = ag.function(whole_list)(x, np.int64(k))
    assert isinstance(got, list) and [float(v) for v in got] == whole_list(x, k)


def while_dict(x, n):
    s = {"a": x * 0.0, "b": x * 0.0}
    i = 0
    while i < n:
        s["a"] = s["a"] + x
        s["b"] = s["a"] * 2
        i += 1
    return s["a"] + 10 * s["b"]


def for_list_if(x, n):
    s = [x * 0.0, x * 0.0]
    for i in ag.range(n):
        if i % 2 == 0:
            s[0] = s[0] + x
        else:
            s[1] += 1
    return s[0] + 10 * s[1]


@pytest.mark.parametrize("fn", [while_dict, for_list_if])
@pytest.mark.parametrize("n", [0, 1, 4, 5])
def test_staged_loops_writing_items(fn, n):
    x = np.float64(2.0)
    assert ag.function(fn)(x, np.int64(n)) == fn(x, n)


def program(x, k, plan):
    s = [x * 0.0, x * 1.0, x * 2.0]
    if k > 0:
        for i, v in plan[0]:
            s[i] = s[i] + v * x
    else:
        for i, v in plan[1]:
            s[i] = v
    return s[0] + 10 * s[1] + 100 * s[2]


_ASSIGNMENTS = st.lists(st.tuples(st.integers(0, 2), st.integers(-3, 3)), max_size=4).map(tuple)


@settings(max_examples=25, deadline=None)
@given(_ASSIGNMENTS, _ASSIGNMENTS, st.integers(-1, 1))
def test_any_assignments_in_either_branch_equal_python(true_plan, false_plan, k):
    x, plan = np.float64(1.5), (true_plan, false_plan)
    assert ag.function(program)(x, np.int64(k), plan) == program(x, k, plan)


def shared(x, k):
    s = [x * 0.0, x * 0.0]
    t = s
    if k == 1:
        s[0] = x + 1
    else:
        s[1] = x
    return s[0] + 10 * t[1]


def parameter(x, s):
    if x > 0:
        s["a"] = x
    return s["a"]


def copied_parameter(x, s):
    s = dict(s)
    if x > 0:
        s["a"] = x
    return s["a"]


@pytest.mark.parametrize(("fn", "args", "match"), [
    (shared, (np.float64(2.0), np.int64(1)), r"item assignment to a list .*'s', which line \d+ shares"),
    (parameter, (np.float64(2.0), {"a": np.float64(0.0)}), r"item assignment to a dict .*'s', a parameter"),
])
def test_a_list_or_dict_that_may_be_shared_is_refused_in_a_staged_branch(fn, args, match):
    with pytest.raises(StagingError, match=match) as info:
        ag.function(fn)(*args)
    assert "test_item_assignment_branches.py:" in str(info.value)


def test_python_mode_writes_through_and_a_copy_makes_it_own():
    d = {"a": 0.0}
    assert ag.convert(parameter)(2.0, d) == 2.0 and d == {"a": 2.0}
    d = {"a": np.float64(0.0)}
    assert ag.function(copied_parameter)(np.float64(2.0), d) == 2.0
    assert ag.function(copied_parameter)(np.float64(-2.0), d) == 0.0
    assert d == {"a": 0.0}


def shared_at_top_level(x):
    s = [x, x]
    t = s
    s[0] = x * 2
    for i in range(2):
        s[i] = s[i] + 1
    return t[0] + 10 * t[1]


def test_writes_outside_staged_blocks_stay_in_place():
    x = np.float64(2.0)
    assert ag.function(shared_at_top_level)(x) == shared_at_top_level(x) == 35.0


class Holder:
    def __init__(self):
        self.d = {"a": 0.0, "b": 0.0}

    def update(self, x):
        if x > 0:
            self.d["a"] = x
        else:
            self.d["b"] = x
        return self.d["a"] + 10 * self.d["b"]


@pytest.mark.parametrize("x", [-2.0, 2.0])
def test_an_attributes_items_are_carried_as_before(x):
    assert ag.function(Holder().update)(np.float64(x)) == Holder().update(x)


def grown(x, k):
    s = [x]
    s.append(x * 2)
    d = {}
    d.update(a=x)
    if k == 1:
        s[0] = x + 1
        d["a"] = x * 5
    else:
        s[1] = x
    return s[0] + 10 * s[1] + 100 * d.get("a")


@pytest.mark.parametrize("k", [0, 1])
def test_a_list_or_dict_grown_by_its_own_methods_stays_own(k):
    x = np.float64(2.0)
    assert ag.function(grown)(x, np.int64(k)) == grown(x, k)
