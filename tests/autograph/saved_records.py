"""Make calls and record what each gave, bit for bit, for comparing two runs.

Imports only NumPy and the runtime: the saved-model tests run it in a fresh
process that must not import the converter.
"""

from __future__ import annotations

import collections
import contextlib
import io

import numpy as np

from runtime.ir.structure import flatten, map_structure

__all__ = ["SavedVariable", "SavedNamedtuple", "run_calls", "same_records"]


class SavedVariable:
    """A Variable argument of a recorded call: the `index`th Variable of the saved directory
    (the original Variable live, the restored one when loaded). Not a dataclass: those are
    structures whose fields would be the leaves."""

    def __init__(self, index: int) -> None:
        self.index = index


class SavedNamedtuple:
    """A namedtuple argument of a recorded call, as its name, fields and values: the loading
    process has not the class, and rebuilds one with the same name and fields."""

    def __init__(self, name: str, fields: tuple, values: tuple) -> None:
        self.name, self.fields, self.values = name, fields, values


def _rebuild(value):
    if isinstance(value, SavedNamedtuple):
        return collections.namedtuple(value.name, value.fields)(*map(_rebuild, value.values))
    if type(value) in (tuple, list):
        return type(value)(map(_rebuild, value))
    if type(value) is dict:
        return {k: _rebuild(v) for k, v in value.items()}
    return value


def _leaves(value) -> tuple[list, str]:
    leaves, tree = flatten(value)
    return leaves, str(tree)


def run_calls(target, calls: list, method: bool = False, keywords: bool = False, variables=()) -> list:
    """Make each call of `calls` on `target` (`keywords`: each call is (args, kwargs), where a
    SavedVariable stands for `variables[index]`); per call (printed text, outcome), where the
    outcome is ("ok", tree, [(type name, dtype, shape, bytes) per leaf]) or ("error", type name)."""
    records = []
    for call in calls:
        fn, args = (getattr(target, call[0]), call[1]) if method else (target, call)
        args, kwargs = _rebuild(args if keywords else (args, {}))
        args, kwargs = map_structure(lambda v: variables[v.index] if isinstance(v, SavedVariable) else v,
                                     (args, kwargs))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                result = fn(*args, **kwargs)
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
