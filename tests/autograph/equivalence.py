"""Checking that a converted function behaves exactly like the original on Python values."""

from __future__ import annotations

import contextlib
import io
import textwrap

import numpy as np

import autograph as ag

__all__ = ["run", "assert_same", "normalize"]


def run(func, *args, **kwargs):
    """(result, printed output, exception type and message) of one call."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = func(*args, **kwargs)
            error = None
        except Exception as exc:  # noqa: BLE001 - the exception is the observed behaviour
            result = None
            error = (type(exc), str(exc))
    return result, out.getvalue(), error


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    return a == b and type(a) is type(b)


def assert_same(func, *args, **kwargs):
    """Converted and original agree on value, printed output and raised exception."""
    expected = run(func, *args, **kwargs)
    actual = run(ag.convert(func), *args, **kwargs)
    assert _equal(actual[0], expected[0]), (actual, expected)
    assert actual[1:] == expected[1:], (actual, expected)
    return actual[0]


def normalize(source: str) -> str:
    """Source text with common indentation and blank lines removed, for before/after tests."""
    lines = [line for line in textwrap.dedent(source).strip("\n").splitlines() if line.strip()]
    return "\n".join(lines)
