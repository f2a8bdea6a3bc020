"""written_liveness: the liveness of the function as written reaches the staged if and loop."""

from __future__ import annotations

import textwrap

import gast

import autograph as ag
from autograph.analysis.activity import Activity
from autograph.converters import written_liveness
from autograph.converters.context import Context
from autograph.source.naming import Namespace


def _calls(fn, operator: str) -> list[str]:
    return [line.strip() for line in str(ag.to_code(fn)).splitlines() if f"ag__.{operator}(" in line]


def search(x, n):
    for i in ag.range(n):
        if x[i] < 0:
            idx = i
            break
    else:
        idx = -1
    return idx


def search_without_else(x, n):
    for i in ag.range(n):
        if x[i] < 0:
            idx = i
            break
    return idx


def test_the_search_idiom_passes_what_nothing_reads():
    inner_if = _calls(search, "if_stmt")[0]
    assert inner_if.endswith("('break_', 'idx'), unread=((), ('idx',)))")
    (loop,) = _calls(search, "for_stmt")
    assert "'unread_at_head': ('idx',)" in loop


def test_a_loop_without_else_passes_nothing():
    # the code after the loop reads idx on the path that does not break: no liveness taken
    assert all("unread" not in call for call in _calls(search_without_else, "if_stmt"))
    assert all("unread" not in call for call in _calls(search_without_else, "for_stmt"))


def _recorded(source: str) -> tuple[gast.FunctionDef, Context]:
    fn = gast.parse(textwrap.dedent(source)).body[0]
    ctx = Context(filename="t.py", first_line=1, function_name=fn.name, namespace=Namespace.for_tree(fn))
    written_liveness.record(fn, ctx, frozenset(), Activity.of_function(fn))
    return fn, ctx


def test_a_branch_that_jumps_has_nothing_unread():
    fn, ctx = _recorded(
        """
        def f(x):
            for v in x:
                if v > 0:
                    found = v
                else:
                    found = -v
                    break
            else:
                found = 0
            return found
        """
    )
    if_ = fn.body[0].body[0]
    # after the true branch the loop goes on: found is rebound before any read; the false one breaks
    assert written_liveness.unread_after_if(ctx, if_, ("found",)) == (("found",), ())
    assert written_liveness.unread_at_head(ctx, fn.body[0], ("found",)) == ("found",)


def test_names_the_function_does_not_bind_are_never_unread():
    fn, ctx = _recorded(
        """
        def f(x):
            for v in x:
                if v > 0:
                    break
            else:
                v = 0
            return v
        """
    )
    # a flag made by the jump passes is no name of the function as written
    assert written_liveness.unread_after_if(ctx, fn.body[0].body[0], ("break_",)) == ((), ())
