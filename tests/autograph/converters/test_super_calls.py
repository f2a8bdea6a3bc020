"""super_calls: zero-argument super() works wherever conversion moves it."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from autograph.pipeline import convert_source


class Base:
    def f(self, x):
        return x + 1


class Child(Base):
    def in_branch(self, x):
        if x > 2:
            x = super().f(x)
        return x

    def in_loop_and_operand(self, x):
        while x < 10:
            x = super().f(x) if x % 2 else super().f(x) + 1
        return x

    def in_nested_function(self, x):
        def inner(me, y):
            if y > 0:
                return super().f(y)
            return y

        return inner(self, x)

    def in_comprehension(self, xs):
        return [super().f(v) for v in xs]  # fails in Python before 3.12: its own scope

    @ag.function
    def staged(self, x):
        return super().f(x) * 2 if x > 0 else x


@pytest.mark.parametrize("name, arg", [
    ("in_branch", 5), ("in_branch", 1), ("in_loop_and_operand", 0), ("in_nested_function", 3),
    ("in_comprehension", [1, 2]),
])
def test_converted_methods_behave_like_the_originals(name, arg):
    original = getattr(Child(), name)
    converted = ag.convert(original)
    try:
        expected = ("ok", original(arg))
    except Exception as error:  # noqa: BLE001 - the comprehension's own failure, if Python has it
        expected = ("raised", type(error), str(error))
    try:
        actual = ("ok", converted(arg))
    except Exception as error:  # noqa: BLE001
        actual = ("raised", type(error), str(error))
    assert actual == expected


def test_staged_super_in_a_conditional_expression():
    child = Child()
    assert child.staged(np.float64(1.0)) == 4.0 and child.staged(np.float64(-1.0)) == -1.0


def test_the_call_names_the_class_cell_and_the_first_argument():
    code = str(ag.to_code(Child.in_branch))
    assert "super(__class__, self).f" in code


def test_only_methods_are_rewritten_in_a_converted_file():
    source = (
        "class C(B):\n"
        "    def m(this, x):\n"
        "        if x:\n"
        "            x = super().m(x)\n"
        "        return x\n"
        "def f(self, x):\n"
        "    if x:\n"
        "        x = super().m(x)\n"
        "    return x\n"
    )
    method, function = convert_source(source, "t.py", all_functions=True)
    assert "super(__class__, this).m, x)" in method.code
    assert "super().m, x)" in function.code  # no __class__ cell: it fails as the original does
