"""catching: the try/with block each assert, if-expression, and/or and chain lies in."""

from __future__ import annotations

import textwrap

import gast

from autograph.converters.catching import catching_blocks, expressions_within
from autograph.converters.context import Context
from autograph.source.naming import Namespace


def _marked(source: str) -> dict[str, tuple[str, int]]:
    """Source text of each marked node -> its (keyword, line)."""
    fn = gast.parse(textwrap.dedent(source)).body[0]
    ctx = Context(filename="t.py", first_line=1, function_name=fn.name, namespace=Namespace.for_tree(fn))
    marks = expressions_within(fn, ctx).values()
    return {gast.unparse(node).strip(): within for node, within in marks}


def test_constructs_in_try_and_with_bodies_name_the_innermost_block():
    marked = _marked(
        """
        def f(x, y):
            z = y if x else -y
            try:
                z = x if y else -x
                assert x, 'm'
                with cm(x or y):
                    w = x and y
                    v = 0 < x < 1
            except ValueError:
                z = x or y
            return z
        """
    )
    assert marked == {
        "x if y else -x": ("try", 4),
        "assert x, 'm'": ("try", 4),
        "x or y": ("try", 4),  # the with item is evaluated before the with block starts
        "x and y": ("with", 7),
        "0 < x < 1": ("with", 7),
    }  # the handler's `x or y` lies in no catching block: it has no finally


def test_handlers_and_else_of_a_try_with_finally_are_inside_it():
    marked = _marked(
        """
        def f(x):
            try:
                pass
            except ValueError:
                a = x or 1
            else:
                b = x and 2
            finally:
                c = x if x else 3
        """
    )
    assert marked == {"x or 1": ("try", 3), "x and 2": ("try", 3)}


def test_tests_of_if_while_assert_are_left_to_the_statement():
    """A staged `and`/`or`/`not`/chain that is the test is a Tensor, and the statement is refused."""
    marked = _marked(
        """
        def f(x, y):
            try:
                if x > 0 and not (y > 0 or x < 1):
                    pass
                while 0 < x < 3:
                    x = x - 1
                assert x and y
                if g(x and y):
                    pass
                if (x if y else 0) and y:
                    pass
            finally:
                pass
        """
    )
    assert marked == {
        "assert x and y": ("try", 3),
        "x and y": ("try", 3),  # an argument: g may turn a Tensor into anything
        "x if y else 0": ("try", 3),  # a cond may return a structure, which an if reads as Python
    }


def test_nested_functions_and_lambdas_run_where_they_are_called():
    marked = _marked(
        """
        def f(x):
            with cm():
                def g(y):
                    return y if y else 0
                h = lambda y: y or 1
                s = [v if v else 0 for v in x]
            return g, h, s
        """
    )
    assert marked == {"v if v else 0": ("with", 3)}


def test_catching_blocks_of_a_try():
    try_ = gast.parse("try:\n    a\nexcept E:\n    b\nelse:\n    c\n").body[0]
    assert [catches for _, catches in catching_blocks(try_)] == [True, False, False, False]
