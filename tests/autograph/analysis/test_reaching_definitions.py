"""reaching_definitions: the UNBOUND pseudo-definition tells where a name may be unbound."""

import gast

from autograph.analysis import analyze
from autograph.analysis.reaching_definitions import UNBOUND


def analyses_of(source: str):
    f = gast.parse(source).body[0]
    return f, analyze(f)


def test_unbound_on_some_paths():
    f, a = analyses_of("def f(x):\n    if x:\n        y = 1\n    z = y\n    if x:\n        y = 2\n")
    second = f.body[2]
    assert a.may_be_unbound(second, "y")
    assert not a.unbound(second, "y")  # some binding reaches: initialising here would clobber it
    first = f.body[0]
    assert a.unbound(first, "y")


def test_parameters_and_declared_names_are_bound():
    f, a = analyses_of("def f(x):\n    nonlocal n\n    if x:\n        x = n = 1\n")
    assert not a.may_be_unbound(f.body[1], "x")
    assert not a.unbound(f.body[1], "n")


def test_definitions_reaching_a_loop_from_inside_and_outside():
    f, a = analyses_of("def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n")
    head = a.cfg.head_of[f.body[1]]
    defs = a.definitions.definitions(head, "i")
    assert UNBOUND not in defs
    assert len(defs) == 2
    assert not a.unbound(f.body[1], "i")


def test_del_makes_a_name_unbound_again():
    f, a = analyses_of("def f():\n    x = 1\n    del x\n    if c:\n        x = 2\n")
    assert a.may_be_unbound(f.body[2], "x")
