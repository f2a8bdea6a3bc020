"""expression_scope: operands that bind or suspend are not moved into lambdas."""

import gast

from autograph.converters.expression_scope import binds_or_suspends


def test_binds_or_suspends():
    assert binds_or_suspends([gast.parse("(y := 1)", mode="eval").body])
    assert not binds_or_suspends([gast.parse("a + f(b)", mode="eval").body])
