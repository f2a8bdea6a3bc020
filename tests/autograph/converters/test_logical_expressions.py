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


def test_chained_comparison_last_operand_keeps_its_location():
    """Middles are copied (they appear twice); the first and last operands stay the user's nodes."""
    import gast

    from autograph.converters.context import Context
    from autograph.source.naming import Namespace

    fn = gast.parse("def f(a, b):\n    x = 0\n    return a < b < len(a)\n").body[0]
    last = fn.body[1].value.comparators[-1]
    ctx = Context(filename="t.py", first_line=1, function_name="f", namespace=Namespace.for_tree(fn))
    logical_expressions.transform(fn, ctx)
    call = fn.body[1].value
    second = call.args[1].body  # ag__.and_(a < b, lambda: b < len(a))
    assert second.comparators[0] is last and last.lineno == 3
    assert second.left is not fn.body[1].value.args[0].comparators[0]  # b: a copy in each comparison
