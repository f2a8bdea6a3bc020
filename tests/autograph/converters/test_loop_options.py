"""loop_options: the constant options of a loop inside a helper are bound once per call."""

import numpy as np

import autograph as ag
from autograph.converters import control_flow, directives, hoisting
from tests.autograph.converters.conversion import transformed
from tests.autograph.equivalence import assert_same, normalize


def nested(n):
    total = 0
    for i in range(n):
        for j in range(i):
            k = 0
            while k < j:
                total += k
                k += 1
    return total


def test_inner_loop_options_are_bound_before_the_outer_loop():
    out = normalize(
        transformed(
            "def f(n, pairs):\n    total = 0\n    for i, p in enumerate(pairs):\n        for j, k in p:\n"
            "            total += j * k\n    return total\n",
            control_flow,
            hoisting,
        )
    )
    lines = [line.strip() for line in out.splitlines()]
    assert "opts = {'iterate_names': 'j, k'}" in lines, out
    binding = lines.index("opts = {'iterate_names': 'j, k'}")
    assert lines[binding + 1].startswith("ag__.for_stmt(enumerate(pairs), loop_body"), out
    assert lines[binding + 1].endswith("opts={'iterate_names': 'i, p'})"), out  # the outer loop runs once
    assert any(line.startswith("ag__.for_stmt(p, ") and line.endswith(", opts=opts)") for line in lines), out


def test_a_loop_over_one_name_passes_no_options():
    out = transformed("def f(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n",
                      control_flow)
    assert "ag__.for_stmt(range(n), loop_body, ('total',))\n" in out, out


def test_options_that_read_names_stay_in_place():
    out = normalize(
        transformed(
            "def f(n, x):\n    for i in range(n):\n        while x > 1:\n"
            "            ag.set_loop_options(maximum_iterations=n)\n            x = x // 2\n    return x\n",
            directives,
            control_flow,
            hoisting,
        )
    )
    assert "opts = " not in out, out
    assert "{'maximum_iterations': n}" in out, out


def test_every_depth_of_nesting_runs_as_python_does():
    assert_same(nested, 6)
    assert ag.convert(nested)(0) == 0


def test_a_staged_inner_loop_reads_the_bound_options():
    def staged(x, n):
        total = x * 0
        for i in range(n):
            k = x * 0
            while k < x:
                total = total + k * i
                k = k + 1
        return total

    f = ag.function(staged)
    assert f(np.int64(4), 3) == staged(4, 3)
