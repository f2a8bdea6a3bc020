"""unbound_reads: reads that may see the Undefined placeholder are checked in place."""

import gast
import pytest

import autograph as ag
from autograph.analysis import analyze
from autograph.converters.unbound_reads import check_reads


def parse(source: str) -> gast.FunctionDef:
    return gast.parse(source).body[0]


def test_only_possibly_unbound_reads_are_checked():
    fn = parse("def f(c):\n    if c:\n        n = 1\n    j = [n, c]\n    k = lambda: n\n")
    analyses = analyze(fn)
    copy, later = fn.body[1], fn.body[2]
    check_reads(copy, frozenset({"n", "c"}), analyses)
    check_reads(later, frozenset({"n"}), analyses)
    assert gast.unparse(copy).strip() == "j = [ag__.raise_unbound('n') if ag__.is_undefined(n) else n, c]"
    assert gast.unparse(later).strip() == "k = lambda: n"  # read later, by its caller


def test_bound_names_are_left_alone():
    fn = parse("def f(c):\n    n = 1\n    j = n\n")
    check_reads(fn.body[1], frozenset({"n"}), analyze(fn))
    assert gast.unparse(fn.body[1]).strip() == "j = n"


def test_converted_copy_of_unbound_name_raises():
    def f(c):
        for i in range(2):
            if i > c:
                n = 1
            j = n
        return j

    converted = ag.convert(f)
    assert converted(-1) == 1
    with pytest.raises(UnboundLocalError):
        converted(0)


def test_lazy_operands_of_logical_operators_are_checked():
    fn = parse("def f(c):\n    if c:\n        n = 1\n    j = ag__.and_(c, lambda: n)\n")
    check_reads(fn.body[1], frozenset({"n"}), analyze(fn))
    text = gast.unparse(fn.body[1]).strip()
    assert text == "j = ag__.and_(c, lambda: ag__.raise_unbound('n') if ag__.is_undefined(n) else n)"


def test_the_left_operand_of_a_logical_operator_is_checked():
    fn = parse("def f(c):\n    if c:\n        n = 1\n    j = ag__.or_([n], lambda: c)\n")
    check_reads(fn.body[1], frozenset({"n"}), analyze(fn))
    text = gast.unparse(fn.body[1]).strip()
    assert text == "j = ag__.or_([ag__.raise_unbound('n') if ag__.is_undefined(n) else n], lambda: c)"


class _Opened:
    """A context manager that records what it was given."""

    seen: list = []

    def __init__(self, value):
        self.value = value

    def __enter__(self):
        _Opened.seen.append(self.value)
        return self.value

    def __exit__(self, *exc):
        return True


def with_header_reads_a_deleted_name(i):
    del i
    n = 0
    while n < 1:
        n += 1
        with _Opened(i):  # noqa: F821 - unbound on purpose: the original raises here
            i = 2  # noqa: F841 - makes i local, so the read above is unbound
    return n


def test_a_with_header_read_is_checked_like_any_other():
    # the loop carries i, so it holds the placeholder there: the with's header read it as a value
    with pytest.raises(UnboundLocalError):
        with_header_reads_a_deleted_name(0)
    with pytest.raises(UnboundLocalError):
        ag.convert(with_header_reads_a_deleted_name)(0)
    assert _Opened.seen == []
