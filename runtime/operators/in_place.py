"""In-place changes in a staged branch: Python lists and NumPy arrays the branch mutates.

Both branches of a tensor-dependent `if` are traced, so a Python object changed
in place by one of them would be changed whatever the condition. The state is
taken before the branches (`snapshot`), and after them a change is undone and
refused with the fix (`check_unchanged`):

    if x > 0:
        out.append(x)      # StagingError: the Python list 'out' is changed in place ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.origin import Origin
from runtime.operators.staged_state import rule_error

__all__ = ["snapshot", "check_unchanged"]


def snapshot(values: tuple) -> dict[int, Any]:
    """What a branch may change in place: each list's length, a copy of each NumPy array."""
    return {id(v): len(v) if isinstance(v, list) else v.copy() for v in values if isinstance(v, (list, np.ndarray))}


def check_unchanged(names: tuple[str, ...], initial: tuple, before: dict[int, Any], origin: Origin | None) -> None:
    """A list appended to or a NumPy array changed in place (`a += 1`) in a branch: both are
    traced, so the change would happen whatever the condition (it is undone)."""
    for name, value in zip(names, initial):
        if isinstance(value, list) and len(value) != before[id(value)]:
            del value[before[id(value)]:]
            raise rule_error(
                f"the Python list '{name}' is changed in place inside a tensor-dependent if",
                origin,
                f"A graph cannot grow '{name}' on one path only: build a new list in both "
                f"branches, or accumulate with ag.TensorArray.",
            )
        if isinstance(value, np.ndarray) and not np.array_equal(value, before[id(value)],
                                                                equal_nan=value.dtype.kind in "fc"):
            np.copyto(value, before[id(value)])
            raise rule_error(
                f"the NumPy array '{name}' is changed in place inside a tensor-dependent if",
                origin,
                f"Both branches are traced, so the change would happen whatever the condition: "
                f"make a new array instead ({name} = {name} + 1 rather than {name} += 1).",
            )
