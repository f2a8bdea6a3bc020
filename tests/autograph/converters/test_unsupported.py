"""unsupported: yield/await/except* rejected with the user's line; nested generators left alone."""

import sys

import gast
import pytest

from autograph.converters import unsupported
from autograph.converters.context import Context
from autograph.source.naming import Namespace
from runtime.ir.errors import ConversionError


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


_EXCEPT_STAR = '''
def grouped(n):
    out = []
    for i in range(n):
        try:
            if i % 2:
                raise ExceptionGroup("g", [ValueError(i), KeyError(i)])
            out.append(i)
        except* ValueError:
            out.append("V")
        except* KeyError:
            out.append("K")
    return out


def outer(n):
    def nested(k):
        r = 0
        try:
            raise ExceptionGroup("h", [TypeError(k)])
        except* TypeError as eg:
            r = len(eg.exceptions) + k
        return r
    total = []
    for i in range(n):
        if i > 0:
            total.append(nested(i))
    return total, grouped(n)
'''


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is Python 3.11's")
def test_except_star_is_refused_by_name_and_called_as_written(tmp_path):
    """The analyses do not model except* handlers running in turn: such a function is never
    converted, and converted code calls it (or keeps a nested one) as written."""
    import autograph as ag
    from tests.autograph.differential import load, unload

    grouped = load(_EXCEPT_STAR, tmp_path, "grouped")
    outer = grouped.__globals__["outer"]
    try:
        with pytest.raises(ConversionError) as info:
            ag.convert(grouped)
        message = str(info.value)
        assert "cannot convert 'grouped': it uses `try/except*`" in message
        assert f"{grouped.__code__.co_filename}:5    try:" in message and "ag.do_not_convert" in message
        assert ag.convert(outer)(3) == outer(3) == ([2, 3], [0, "V", "K", 2])
        assert "except* TypeError as eg:" in ag.to_code(outer)
    finally:
        unload(grouped)
