"""operator_calls: which nodes are calls of an `ag__` operator."""

import gast
import pytest

from autograph.converters.operator_calls import called_operator


def _expr(text: str) -> gast.expr:
    return gast.parse(text).body[0].value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ag__.for_stmt(it, loop_body)", "for_stmt"),
        ("ag__.if_exp(c, if_true, if_false, 'c')", "if_exp"),
        ("ag__.and_(a, lambda: b)", "and_"),
        ("obj.for_stmt(it)", None),
        ("ag__.ops.if_exp(c)", None),
        ("for_stmt(it)", None),
        ("ag__.if_exp", None),
        ("x + 1", None),
    ],
)
def test_called_operator(text, expected):
    assert called_operator(_expr(text)) == expected


def test_a_statement_is_not_a_call():
    assert called_operator(gast.parse("ag__.not_(x)").body[0]) is None
