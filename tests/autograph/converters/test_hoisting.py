"""hoisting: helpers move out of loop bodies only when their free names allow it."""

import numpy as np

import autograph as ag
from autograph.converters import control_flow, hoisting
from tests.autograph.converters.conversion import transformed
from tests.autograph.equivalence import assert_same, normalize


def test_helper_closing_over_loop_vars_moves_up():
    out = normalize(
        transformed(
            "def f(n):\n    s = 0\n    i = 0\n    while i < n:\n        if i % 2:\n            s += i\n        i += 1\n    return s\n",
            control_flow,
            hoisting,
        )
    )
    lines = out.splitlines()
    assert lines.index("    def if_body():") < lines.index("    def loop_body():")


def test_helper_reading_a_body_local_moves_and_shares_it():
    out = normalize(
        transformed(
            "def f(xs):\n    s = 0\n    for x in xs:\n        if x:\n            s += x\n    return s\n",
            control_flow,
            hoisting,
        )
    )
    lines = out.splitlines()
    assert lines.index("    def if_body():") < lines.index("    def loop_body(itr):")
    assert lines[lines.index("    def loop_body(itr):") + 1 :][:2] == ["        nonlocal s, x", "        x = itr"]


def test_helper_reading_a_private_branch_local_stays():
    # x is read first in the else branch while unbound: it must stay local to the true branch
    source = (
        "def f(c, d):\n    if c:\n        x = 1\n        if d:\n            x += 1\n"
        "    else:\n        y = x\n    return 0\n"
    )
    lines = normalize(transformed(source, control_flow, hoisting)).splitlines()
    assert lines.index("    def if_body():") < lines.index("        def if_body_1():")
    assert "nonlocal x" not in lines[lines.index("    def if_body():") + 1]


def test_statements_of_plain_names_need_no_state_functions():
    source = (
        "def f(xs):\n    s = 0\n    for x in xs:\n        if x > 1:\n            s += x\n"
        "        if x > 2:\n            s -= 1\n    return s\n"
    )
    lines = normalize(transformed(source, control_flow, hoisting)).splitlines()
    assert not [line for line in lines if "_state" in line]
    calls = [line for line in lines if ", ('s',)" in line]
    assert len(calls) == 3 and not [line for line in calls if "nouts" in line]  # every name an output


def test_identical_state_functions_of_attributes_are_merged():
    # on a global (acc): an attribute of a local is read through its cell, with no state functions
    source = (
        "def f(xs):\n    for x in xs:\n        if x > 0:\n            acc.total = acc.total + x\n"
        "    return acc.total\n"
    )
    lines = normalize(transformed(source, control_flow, hoisting)).splitlines()
    assert [line for line in lines if "def get_state" in line] == ["    def get_state():"]
    assert [line for line in lines if "def set_state" in line] == ["    def set_state(vars_):"]
    assert sum("('acc.total',), get_state=get_state, set_state=set_state" in line for line in lines) == 2


def pair_or_none(n, c):
    a, b, p = 0, 1, None
    for i in range(n):
        if i > 2:
            a = a + 1
            b = b + a
        p = (a, b) if c else None
    return a, b, p


def test_a_conditional_expression_in_a_loop_body_binds_its_operands_once_outside_it():
    assert_same(pair_or_none, 5, True)
    assert_same(pair_or_none, 5, False)
    code = str(ag.to_code(pair_or_none))
    assert "ag__.if_exp(c, if_true, if_false, 'c')" in code
    lines = code.splitlines()
    assert lines.index("    if_true, if_false = (lambda: (a, b), lambda: None)") < lines.index("    def loop_body(i):")


def extrema(xs):
    lo = xs[0]
    lows = []
    for x in xs:
        lo = x if x < lo else lo
        lows.append(lo)
    return lows


def test_operands_reading_a_local_of_the_loop_body_stay_lambdas():
    assert_same(extrema, [3, 1, 4, 1, 5])
    assert "ag__.if_exp(x < lo, lambda: x, lambda: lo, 'x < lo')" in ag.to_code(extrema)


def shared_temporaries(x, n):
    s = x * 0
    i = 0
    while i < n:
        tmp = s + x
        for j in range(3):
            if tmp > j:
                s = s + 1
        i += 1
    return s


def test_shared_body_locals_keep_python_and_staged_results():
    assert_same(shared_temporaries, 2.0, 5)
    x, n = np.float32(2.0), np.int64(5)
    assert ag.function(shared_temporaries)(x, n) == shared_temporaries(x, n)  # a staged while and cond
    assert "nonlocal i, tmp" in ag.to_code(shared_temporaries)  # tmp is shared; s is bound by if_body
