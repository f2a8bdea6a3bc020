"""asserts: assert -> ag__.assert_stmt with a lazy message."""

from autograph.converters import asserts
from tests.autograph.converters.conversion import assert_converts


def test_assert_with_and_without_message():
    assert_converts(
        "def f(x):\n    assert x > 0, f'bad {x}'\n    assert x\n",
        "def f(x):\n    ag__.assert_stmt(x > 0, lambda: f'bad {x}')\n    ag__.assert_stmt(x)\n",
        asserts,
    )
