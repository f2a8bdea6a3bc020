"""bindings: carried names whose only earlier binding stayed branch-local get one at the top."""

import gast

from autograph.converters.bindings import unresolved_nonlocals
from tests.autograph.equivalence import assert_same


def test_unresolved_nonlocals_found():
    fn = gast.parse(
        "def f(a):\n"
        "    def if_body():\n"
        "        nonlocal j, a\n"
        "        j = 1\n"
        "    def g():\n"
        "        k = 0\n"
        "        def h():\n"
        "            nonlocal k\n"
    ).body[0]
    assert unresolved_nonlocals(fn) == ["j"]


def branch_local_then_carried(c, d):
    if c:
        pass
    else:
        j = 1
    if d:
        j = 2
    else:
        raise ValueError("no j")
    return j


def test_equivalent():
    assert_same(branch_local_then_carried, 0, 1)
    assert_same(branch_local_then_carried, 1, 0)
    assert_same(branch_local_then_carried, 0, 0)
