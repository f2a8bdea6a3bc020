"""state: which names an if or loop carries, which need initialising."""

import gast
import numpy as np
import pytest

import autograph as ag
from autograph.analysis import analyze
from autograph.converters.state import plan_if, plan_loop


def plan(source: str, index: int = 0):
    fn = gast.parse(source).body[0]
    node = fn.body[index]
    analyses = analyze(fn)
    return (plan_if if isinstance(node, gast.If) else plan_loop)(node, analyses)


def test_if_outputs_first_then_read_modified():
    p = plan("def f(x, n):\n    if x:\n        y = 1\n        n += 1\n        t = 0\n    return y\n")
    assert p.names == ("y", "n")
    assert p.nouts == 1
    assert p.unbound == ("y",)


def test_loop_vars_exclude_body_locals_and_globals():
    p = plan(
        "def f(n):\n    global g\n    s = 0\n    for i in range(n):\n        t = i\n        s += t\n        g = s\n    return s\n",
        2,
    )
    assert p.names == ("s",)
    assert p.globals == ("g",)
    assert p.unbound == ()


def test_a_name_a_closure_reads_gets_no_placeholder():
    # `get` reading `last` before it is bound raises NameError, never returns a placeholder
    p = plan(
        "def f(flag):\n    def get():\n        return last\n    if flag:\n        r = get()\n"
        "    else:\n        last = 1\n        r = get()\n    return r\n",
        1,
    )
    assert "last" in p.names
    assert p.unbound == ("r",)
    assert "last" in p.deleted  # get_state reads it through value_or_undefined


def test_a_name_a_closure_only_sets_keeps_its_placeholder():
    p = plan(
        "def f(xs):\n    def record(v):\n        nonlocal last\n        last = v\n    for x in xs:\n"
        "        if x > 2:\n            return last\n        record(x)\n    last = 0\n    return last\n",
        1,
    )
    assert "last" in p.unbound


def test_a_name_unbound_on_some_paths_is_read_as_undefined_by_get_state():
    p = plan("def f(x, c):\n    if c:\n        y = 1\n    if x:\n        y = 2\n    return y\n", 1)
    assert p.names == ("y",)
    assert p.unbound == ()
    assert p.deleted == ("y",)


def _unbound_before_a_staged_if(x, c):
    if c:
        y = 1.0
    if x > 0:
        y = 2.0
    return y


def _return_behind_a_python_test_in_a_staged_loop(u, c):
    for _ in ag.range(2):
        if c:
            return 1.0
    return -2.0


def test_staged_if_after_a_python_branch_that_bound_nothing():
    """The name is unbound when the staged if reads its state: the rule's
    StagingError, not a NameError out of get_state; and the return value,
    unbound when the loop's return never ran, is the other return's."""
    with pytest.raises(ag.errors.StagingError, match="'y' is defined only in the true branch"):
        ag.function(_unbound_before_a_staged_if)(np.float64(1.0), False)
    assert ag.function(_return_behind_a_python_test_in_a_staged_loop)(np.zeros(1), False) == -2.0
