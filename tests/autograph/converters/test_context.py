"""context: converter errors point at the user's file and line."""

import gast

from autograph.converters.context import Context
from autograph.source.naming import Namespace


def test_error_uses_first_line_and_indent():
    node = gast.parse("\n\nx = 1").body[0]
    ctx = Context("model.py", 40, "f", Namespace(set()), source_lines=["", "", "x = 1\n"])
    error = ctx.error(node, "what", "the rule", "the fix")
    assert "model.py:42" in str(error)
    assert ctx.user_line(node) == 42
