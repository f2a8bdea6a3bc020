"""diagnostics: messages with file:line, the line, a caret, the rule and the fix."""

from autograph.source.diagnostics import conversion_error, no_source_error


def test_conversion_error_layout():
    error = conversion_error(
        "cannot convert 'f': it uses `yield`", "model.py", 12, "no staged yield", "return a list", text="    yield x\n", col=4
    )
    lines = str(error).splitlines()
    assert lines[0] == "cannot convert 'f': it uses `yield`"
    assert lines[1] == "  model.py:12    yield x"
    assert lines[2].index("^") == lines[1].index("yield")
    assert lines[3] == "No staged yield. Fix: return a list."
    assert error.origin.line == 12


def test_no_source_error_names_function():
    assert "'len'" in str(no_source_error(len))
