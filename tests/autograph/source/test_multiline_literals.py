"""Multi-line string, f-string and bytes literals keep their exact text through conversion.

The parser re-indents an indented def (a method, a nested function) before
parsing it, and the loader indents the converted def into its factory: both
must leave the lines inside a literal alone, or a method's string silently
changes length (`len(text)` differs between Python and converted code).
"""

import numpy as np

import autograph as ag
from autograph.source.parsing import parse_function


class Describer:
    def describe(self, x):
        text = """first line
        second line"""
        if x > 0:
            x = x + len(text)
        return x

    def formatted(self, x):
        label = f"""value {x}
            indented more"""
        raw = b"""bytes
      here"""
        joined = "one \
    continued"
        return label, raw, joined


def outer():
    def inner(x):
        t = f'''a {x!r}
            b {x + 1:>4}'''
        b = b'''q
          r'''
        return t, b

    return inner


def method_docstring():
    def documented():
        """Summary.

          indented detail
        last"""
        return 1

    return documented.__doc__


TEXT = """first line
        second line"""


def test_parsed_method_keeps_the_strings_continuation_lines():
    parsed = parse_function(Describer.describe)
    assign = parsed.node.body[0]
    assert assign.value.value == TEXT
    assert parsed.user_line(assign.lineno) == Describer.describe.__code__.co_firstlineno + 1


def test_convert_of_a_method_with_a_multiline_string_matches_python():
    obj = Describer()
    assert ag.convert(Describer.describe)(obj, 1) == Describer.describe(obj, 1) == 1 + len(TEXT)
    assert ag.convert(obj.describe)(1) == obj.describe(1)


def test_function_of_a_method_with_a_multiline_string_matches_python():
    obj = Describer()
    staged = ag.function(Describer.describe)
    assert staged(obj, np.float64(1.0)) == obj.describe(1.0)
    assert staged(obj, np.float64(-1.0)) == obj.describe(-1.0)


def test_f_strings_bytes_and_backslash_continuations_in_a_method():
    obj = Describer()
    assert ag.convert(Describer.formatted)(obj, 7) == obj.formatted(7)


def test_nested_function_f_strings_and_bytes():
    inner = outer()
    assert ag.convert(inner)(3) == inner(3)
    converted_outer = ag.convert(outer)
    assert converted_outer()(5) == inner(5)


def test_a_nested_functions_docstring_keeps_its_text():
    """The emitter prints docstrings with real line breaks; the loader must not indent them."""
    assert ag.convert(method_docstring)() == method_docstring()


def test_lines_still_map_to_the_file_when_a_method_holds_a_multiline_string():
    @ag.function
    def check(x):
        note = """a
        b"""
        assert x > 0, note
        return x

    try:
        check(np.float64(-1.0))
    except ag.errors.InvalidArgumentError as error:
        message = str(error)
    else:
        raise AssertionError("the staged assert did not fail")
    assert "assert x > 0, note" in message
