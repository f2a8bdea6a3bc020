"""conditional_expressions: `x if c else y` -> ag__.if_exp with lazy branches."""

from autograph.converters import conditional_expressions
from tests.autograph.converters.conversion import assert_converts
from tests.autograph.equivalence import assert_same


def test_if_exp():
    assert_converts(
        "def abs_(x):\n    return -x if x < 0 else x\n",
        "def abs_(x):\n    return ag__.if_exp(x < 0, lambda: -x, lambda: x, 'x < 0')\n",
        conditional_expressions,
    )


def test_nested_if_exp_inner_first():
    assert_converts(
        "def f(x):\n    return 1 if x > 1 else 0 if x == 0 else -1\n",
        "def f(x):\n    return ag__.if_exp(x > 1, lambda: 1, lambda: ag__.if_exp(x == 0, lambda: 0, lambda: -1, 'x == 0'), 'x > 1')\n",
        conditional_expressions,
    )


def lazy(xs):
    return xs[0] if xs else "none"


def test_branches_stay_lazy():
    assert_same(lazy, [])
    assert_same(lazy, [3])
