"""Staged if statements and conditional expressions, written as converted code.

What a staged if refuses: test_staged_if_errors.py.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from runtime import operators as ag__
from tests.runtime.operators.graphs import SCALAR_F, SCALAR_I, trace


def abs_value(x):
    y = 0

    def get_state():
        return (y,)

    def set_state(values):
        nonlocal y
        (y,) = values

    def if_body():
        nonlocal y
        y = x

    def else_body():
        nonlocal y
        y = -x

    ag__.if_stmt(x > 0, if_body, else_body, ("y",), 1, get_state=get_state, set_state=set_state)
    return y


def test_if_else_stages_one_cond_with_both_branches():
    f = trace(abs_value, SCALAR_I)
    assert f(np.int64(3)) == 3
    assert f(np.int64(-4)) == 4
    assert [n.op for n in f.graph.nodes].count("cond") == 1


def fizzbuzz_step(i):
    def get_state():
        return ()

    def set_state(values):
        pass

    def if_body():
        print("Tracing fizzbuzz branch")

    def else_body():
        def if_body_1():
            print("Tracing fizz branch")

        def else_body_1():
            print("Tracing default branch")

        ag__.if_stmt(i % 3 == 0, if_body_1, else_body_1, (), 0, get_state=get_state, set_state=set_state)

    ag__.if_stmt(i % 15 == 0, if_body, else_body, (), 0, get_state=get_state, set_state=set_state)
    return i


def test_python_print_in_each_branch_runs_once_while_tracing(capsys):
    f = trace(fizzbuzz_step, SCALAR_I)
    out = capsys.readouterr().out.splitlines()
    assert out == ["Tracing fizzbuzz branch", "Tracing fizz branch", "Tracing default branch"]
    f(np.int64(15))
    f(np.int64(4))
    assert capsys.readouterr().out == ""
    print("\n".join(out))


def sign(x):
    s = 0

    def get_state():
        return (s,)

    def set_state(values):
        nonlocal s
        (s,) = values

    def if_body():
        nonlocal s
        s = 1

    def else_body():
        def if_body_1():
            nonlocal s
            s = -1

        def else_body_1():
            nonlocal s
            s = 0

        ag__.if_stmt(x < 0, if_body_1, else_body_1, ("s",), 1, get_state=get_state, set_state=set_state)

    ag__.if_stmt(x > 0, if_body, else_body, ("s",), 1, get_state=get_state, set_state=set_state)
    return s


def test_elif_chain_differing_python_numbers_become_tensors():
    f = trace(sign, SCALAR_F)
    assert [f(np.float64(v)) for v in (2.0, -3.0, 0.0)] == [1, -1, 0]
    assert f(np.float64(2.0)).dtype == np.int64


def clip_negative(x):
    y = x
    flag = "kept"

    def get_state():
        return (y, flag)

    def set_state(values):
        nonlocal y, flag
        y, flag = values

    def if_body():
        nonlocal y
        y = x * 0

    def else_body():
        pass

    ag__.if_stmt(x < 0, if_body, else_body, ("y", "flag"), 2, get_state=get_state, set_state=set_state)
    assert flag == "kept"  # equal Python values in both branches stay Python
    return y


def test_if_without_else_keeps_equal_python_values():
    f = trace(clip_negative, SCALAR_I)
    assert f(np.int64(-5)) == 0
    assert f(np.int64(5)) == 5


def early_return(x):
    do_return = False
    retval_ = ag__.Undefined("retval_")

    def get_state():
        return (do_return, retval_)

    def set_state(values):
        nonlocal do_return, retval_
        do_return, retval_ = values

    def if_body():
        nonlocal do_return, retval_
        do_return = True
        retval_ = x * 10

    def else_body():
        pass

    ag__.if_stmt(x > 0, if_body, else_body, ("do_return", "retval_"), 2, get_state=get_state, set_state=set_state)

    def if_body_1():
        nonlocal do_return, retval_
        do_return = True
        retval_ = -x

    def else_body_1():
        pass

    ag__.if_stmt(ag__.not_(do_return), if_body_1, else_body_1, ("do_return", "retval_"), 2, get_state=get_state, set_state=set_state)
    return retval_


def test_return_inside_a_branch():
    f = trace(early_return, SCALAR_I)
    assert f(np.int64(2)) == 20
    assert f(np.int64(-2)) == 2


Pair = namedtuple("Pair", "lo hi")


def ordered(x, y):
    p = {"pair": Pair(x, y), "swapped": False}

    def get_state():
        return (p,)

    def set_state(values):
        nonlocal p
        (p,) = values

    def if_body():
        nonlocal p
        p = {"pair": Pair(y, x), "swapped": True}

    def else_body():
        pass

    ag__.if_stmt(x > y, if_body, else_body, ("p",), 1, get_state=get_state, set_state=set_state)
    return p["pair"].lo, p["pair"].hi, p["swapped"]


def test_nested_structures_flow_through_the_cond():
    f = trace(ordered, SCALAR_I, SCALAR_I)
    assert f(np.int64(5), np.int64(2)) == (2, 5, True)
    assert f(np.int64(1), np.int64(2)) == (1, 2, False)


def test_if_exp_stages_a_cond():
    def halve_or_triple(n):
        return ag__.if_exp(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1, "n % 2 == 0")

    f = trace(halve_or_triple, SCALAR_I)
    assert (f(np.int64(6)), f(np.int64(7))) == (3, 22)
