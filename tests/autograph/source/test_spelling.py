"""Number literals keep the user's spelling in converted code, and their values."""

import gast

import autograph as ag
from autograph.source.spelling import mark_spellings


def damped(x, tol=1e-9):
    n = 10_000
    while x > tol and n > 0x10:
        x = x * 0.5e0
        n -= 1
    return x, n, 2j, -1E3


def test_to_code_prints_numbers_as_written():
    code = ag.to_code(damped)
    for spelled in ("tol=1e-9", "n = 10_000", "n > 0x10", "x * 0.5e0", "2j", "-1E3"):
        assert spelled in code, code
    assert "1e-09" not in code and "10000" not in code


def test_the_spelled_code_computes_the_same():
    assert ag.convert(damped)(3.0) == damped(3.0)


def test_only_a_spelling_of_the_same_value_and_type_is_kept():
    text = "x = (1.0, 1, 2, True)\n"
    tree = gast.parse(text)
    mark_spellings(tree, text)
    spelled = [getattr(n, "spelling", None) for n in gast.walk(tree) if isinstance(n, gast.Constant)]
    assert spelled == [None, None, None, None]  # each written as its repr


def test_a_line_with_wide_characters_before_the_number():
    text = "x = ('é', 1_000)\n"
    tree = gast.parse(text)
    mark_spellings(tree, text)
    assert [getattr(n, "spelling", None) for n in gast.walk(tree) if isinstance(n, gast.Constant)] == [None, "1_000"]
