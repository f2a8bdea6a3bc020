"""logical_expressions: lazy and/or, not, chained comparisons."""

from autograph.converters import logical_expressions
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


def test_and_or_not():
    assert_converts(
        "def f(a, b, c):\n    return a and b or not c\n",
        "def f(a, b, c):\n    return ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))\n",
        logical_expressions,
    )


def test_three_operands_nest_to_the_right():
    assert_converts(
        "def f(a, b, c):\n    return a and b and c\n",
        "def f(a, b, c):\n    return ag__.and_(a, lambda: ag__.and_(b, lambda: c))\n",
        logical_expressions,
    )


def test_chained_comparison_split_when_middle_rereads():
    assert_converts(
        "def f(a, b, c):\n    return a < b.x <= c\n",
        "def f(a, b, c):\n    return ag__.and_(a < b.x, lambda: b.x <= c)\n",
        logical_expressions,
    )


def test_chained_comparison_with_call_kept_and_walrus_operand_kept():
    source = "def f(a, c):\n    return (a < g(a) < c, a and (y := 2))\n"
    assert_converts(source, source, logical_expressions)


def short_circuit(xs):
    return len(xs) > 0 and xs[0] > 1 or "empty"


def test_short_circuit_equivalent():
    assert_same(short_circuit, [])
    assert_same(short_circuit, [5])
    assert_same(short_circuit, [0])


def walrus_in_first_operand(values):
    i = 0
    while (v := values[i]) and i < 10:
        i += 1
    return i, v


def test_walrus_operand_keeps_its_scope():
    assert_same(walrus_in_first_operand, [3, 2, 0])
