"""A measured side must compute the limit's answer, else its time is no result."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_agrees"]


def check_agrees(got: Any, expected: Any, what: str) -> None:
    """Raise AssertionError when `got` differs from `expected` (float32 tolerance)."""
    got_array = np.asarray(got)
    expected_array = np.asarray(expected)
    if got_array.shape != expected_array.shape or not np.allclose(
        got_array, expected_array, rtol=1e-4, atol=1e-5
    ):
        raise AssertionError(f"{what} returned {got_array!r}, expected {expected_array!r}")
