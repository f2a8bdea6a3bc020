"""control_flow: every if/while/for rewritten, innermost first, names minted outermost first."""

from autograph.converters import control_flow
from tests.autograph.converters.conversion import transformed


def test_nested_statements_named_outer_first():
    out = transformed(
        "def f(xs):\n    s = 0\n    for x in xs:\n        if x:\n            s += x\n    return s\n",
        control_flow,
    )
    assert "def loop_body(x):" in out and "def if_body():" in out
    assert "_1" not in out  # no name clashes: none numbered
    assert "if " not in out.replace("if_", "")
    assert "for " not in out


def test_try_body_converted_statement_kept():
    out = transformed("def f(x):\n    try:\n        if x:\n            x = 1\n    except E:\n        pass\n    return x\n", control_flow)
    assert "try:" in out and "ag__.if_stmt(" in out
