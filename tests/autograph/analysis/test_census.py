"""census: one walk gives the namespace's names, the passes' triggers, the refused construct, nested defs."""

import gast
import pytest

from autograph.analysis.census import take_census
from autograph.converters import unsupported
from autograph.converters.context import Context
from autograph.source.naming import Namespace
from runtime.ir.errors import ConversionError

SOURCE = """
def f(x, items: Sequence) -> Result:
    import numpy as np
    def inner(y):
        nonlocal total
        return [v for v in y if v and not v.done]
    class Box:
        def method(self):
            yield 1
    while x:
        if x > 3:
            break
        items.append(x)
    else:
        pass
    return inner(x) if 0 < x < 2 else x
"""


def _fn(source: str) -> gast.FunctionDef:
    return gast.parse(source).body[0]


def test_names_are_every_identifier_of_the_tree():
    census = take_census(_fn(SOURCE))
    assert {"f", "x", "items", "Sequence", "Result", "np", "inner", "y", "v", "total", "Box", "method", "self"} <= census.names
    assert Namespace(census.names).new("inner") == "inner_1"
    assert Namespace(census.names)._used == Namespace.for_tree(_fn(SOURCE))._used


def test_found_names_the_passes_to_run():
    census = take_census(_fn(SOURCE))
    # nested functions count: inner's return makes two, so the return pass runs
    assert census.found == {"break", "append", "logical", "loop_else", "if_exp", "return"}
    assert take_census(_fn("def g(x):\n    x += 1\n    return x\n")).found == set()
    assert take_census(_fn("def g(x):\n    if x:\n        return 1\n    x += 1\n")).found == {"return"}


def test_functions_are_the_defs_of_the_functions_own_code():
    census = take_census(_fn(SOURCE))
    assert [fn.name for fn in census.functions] == ["inner"]


def test_refused_is_what_check_reports_first():
    source = "def g(x):\n    yield x\n    def h():\n        await y\n    await x\n"
    fn = _fn(source)
    refused = take_census(fn, unsupported.CONSTRUCTS).refused
    assert type(refused) is gast.Await and refused.lineno == 5
    ctx = Context("m.py", 1, "g", Namespace(set()))
    with pytest.raises(ConversionError) as checked:
        unsupported.check(fn, ctx)
    with pytest.raises(ConversionError) as refusal:
        unsupported.refuse(refused, ctx)
    assert str(refusal.value) == str(checked.value)
    assert take_census(_fn("def g(x):\n    return x\n"), unsupported.CONSTRUCTS).refused is None


def test_branches_are_the_functions_own_ifs_and_loops():
    assert take_census(_fn(SOURCE)).branches
    assert not take_census(_fn("def g(x):\n    def h(y):\n        if y:\n            return 1\n    return h(x)\n")).branches
    assert take_census(_fn("def g(x):\n    with x:\n        for i in x:\n            pass\n")).branches


def test_scopes_are_functions_lambdas_and_classes_of_the_functions_own_code():
    assert take_census(_fn(SOURCE)).scopes
    assert take_census(_fn("def g(x):\n    return [lambda: v for v in x]\n")).scopes
    assert not take_census(_fn("def g(x, f=lambda: 1):\n    return [v for v in x if v]\n")).scopes


def test_declarations_of_own_code_only_as_activity_finds_them():
    from autograph.analysis.activity import declarations

    fn = gast.parse(
        "def f():\n    global g\n    if c:\n        nonlocal n\n    def inner():\n        global h\n        nonlocal m\n"
    ).body[0]
    census = take_census(fn)
    assert census.declared == (frozenset({"g"}), frozenset({"n"}))
    assert census.declared == declarations(fn.body)
