"""Make calls and record what each gave, bit for bit, for comparing two runs.

Imports only NumPy and the runtime: the saved-model tests run it in a fresh
process that must not import the converter.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np

from runtime.ir.structure import flatten

__all__ = ["run_calls", "same_records"]


def _leaves(value) -> tuple[list, str]:
    leaves, tree = flatten(value)
    return leaves, str(tree)


def run_calls(target, calls: list, method: bool = False) -> list:
    """Make each call of `calls` on `target`; per call (printed text, outcome), where the
    outcome is ("ok", tree, [(type name, dtype, shape, bytes) per leaf]) or ("error", type name)."""
    records = []
    for call in calls:
        fn, args = (getattr(target, call[0]), call[1]) if method else (target, call)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                result = fn(*args)
            except Exception as error:  # the outcome to compare: the same error both ways
                records.append((out.getvalue(), ("error", type(error).__name__)))
                continue
        leaves, tree = _leaves(result)
        described = []
        for leaf in leaves:
            array = np.asarray(leaf)
            described.append((type(leaf).__name__, array.dtype.str, array.shape,
                              array.tobytes() if array.dtype != object else repr(leaf).encode()))
        records.append((out.getvalue(), ("ok", tree, described)))
    return records


def same_records(a: list, b: list) -> str | None:
    """Where two runs' records differ, or None when they are equal (bit for bit)."""
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"call {index}: {x!r:.600} != {y!r:.600}"
    if len(a) != len(b):
        return f"{len(a)} calls != {len(b)} calls"
    return None
