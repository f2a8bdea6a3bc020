"""loader: compiled into a unique file registered in linecache, bound to the original cells."""

import inspect
import linecache
import textwrap
import types

from hypothesis import given, settings
from hypothesis import strategies as st

from autograph.source.loader import _indent, bind_function, compile_function, unique_filename


def make():
    k = 2

    def f(x):
        return x * k

    return f


def test_compile_and_bind_shares_cells_and_globals():
    original = make()
    source = "def f(x):\n    return ag__.twice(x) * k\n"
    filename = unique_filename(__file__, "make.<locals>.f")
    loaded = compile_function(source, "f", original.__code__.co_freevars, filename)
    namespace = types.SimpleNamespace(twice=lambda v: 2 * v)
    new = bind_function(loaded, original, namespace)
    assert new(3) == 12
    assert new.__globals__ is original.__globals__
    assert original.__closure__[0] in new.__closure__
    assert linecache.getline(filename, 4).strip() == "return ag__.twice(x) * k"
    assert inspect.getsource(new).strip().startswith("def f(x):")


def test_unique_names():
    assert unique_filename("/a/model.py", "f") != unique_filename("/a/model.py", "f")
    assert unique_filename("/a/model.py", "f").startswith("<autograph: model.py:f#")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="a \n\t\r\x0b\x0c\x1c\x1e\x85\u3000\u2028", max_size=30))
def test_indent_is_textwrap_indent(text):
    assert _indent(text) == textwrap.indent(text, "    ")


def test_lines_inside_a_literal_are_not_indented_into_the_factory():
    original = make()
    source = 'def f(x):\n    s = """one\n  two"""\n    return s, x * k\n'
    filename = unique_filename(__file__, "make.<locals>.f")
    loaded = compile_function(source, "f", original.__code__.co_freevars, filename, continued=(3,))
    assert bind_function(loaded, original, types.SimpleNamespace())(2) == ("one\n  two", original(2))
