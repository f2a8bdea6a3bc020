"""parsing: live functions (defs, methods, nested, lambdas) back to gast trees."""

import gast
import pytest

from autograph.source.parsing import parse_function
from runtime.errors import ConversionError


class Holder:
    def method(self, x):
        return x


def outer():
    def inner(y):
        return y

    return inner


def test_def_method_and_nested():
    parsed = parse_function(Holder.method)
    assert isinstance(parsed.node, gast.FunctionDef)
    assert parsed.node.name == "method"
    assert parsed.indent == 4
    assert parsed.user_line(parsed.node.lineno) == Holder.method.__code__.co_firstlineno
    nested = parse_function(outer())
    assert nested.node.name == "inner"
    assert nested.indent == 4


def test_lambda_found_by_line_and_arguments():
    pick = [lambda a: a, lambda b: b * 2]  # noqa: E731
    parsed = parse_function(pick[1])
    assert isinstance(parsed.node, gast.Lambda)
    assert parsed.node.args.args[0].id == "b"


def test_no_source():
    with pytest.raises(ConversionError, match="'print'"):
        parse_function(print)
