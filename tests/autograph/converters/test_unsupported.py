"""unsupported: yield/await rejected with the user's line; nested generators left alone."""

import gast
import pytest

from autograph.converters import unsupported
from autograph.converters.context import Context
from autograph.source.naming import Namespace
from runtime.errors import ConversionError


def check(source: str):
    fn = gast.parse(source).body[0]
    unsupported.check(fn, Context("model.py", 10, "f", Namespace(set()), source_lines=source.splitlines(True)))
    return fn


def test_yield_rejected_with_location():
    with pytest.raises(ConversionError) as info:
        check("def f(x):\n    yield x\n")
    assert "model.py:11" in str(info.value)
    assert "`yield`" in str(info.value)


def test_nested_generator_allowed():
    fn = check("def f(x):\n    def g():\n        yield x\n    return list(g())\n")
    assert unsupported.is_generator(fn.body[0])
    assert not unsupported.is_generator(fn)
