"""Retracing policy: relaxing shapes (`reduce_retracing`) and warning about waste.

`relaxed_specs` finds an earlier trace that differs from a new call only in
dimension sizes and returns the specs of a trace that fits both (the dims
that differ become None), so a Function called with 5 shapes of one rank
traces at most twice.

`RetraceMonitor` watches consecutive traces: when the last `LIMIT` calls all
traced, it warns once with a `RetracingWarning` naming the reason of the last
trace (history.retrace_reason: the argument that changed, and how).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from autograph.tracing.concrete import ConcreteFunction
from autograph.tracing.keys import leaf_key
from autograph.tracing.spec import TensorSpec
from runtime.ir.origin import is_internal_file
from runtime.ir.structure import TreeDef

__all__ = ["RetracingWarning", "RetraceMonitor", "relaxed_specs", "fits", "param_keys", "LIMIT"]

LIMIT = 5


class RetracingWarning(UserWarning):
    """A Function traced again at nearly every call: it runs slower than plain Python."""


def fits(cf: ConcreteFunction, tree: TreeDef, leaves: list) -> bool:
    """Whether a call with these flattened arguments can run the trace `cf`."""
    if cf.in_tree != tree:
        return False
    for leaf, plan in zip(leaves, cf.in_plan):
        if isinstance(plan, TensorSpec):
            if not hasattr(leaf, "dtype") or not plan.is_compatible_with(TensorSpec.from_value(leaf)):
                return False
        elif leaf_key(leaf) != plan:
            return False
    return True


def relaxed_specs(
    traces: Sequence[ConcreteFunction], tree: TreeDef, leaves: list, specs: list[TensorSpec | None]
) -> list[TensorSpec | None] | None:
    """Specs that fit both the new call and an earlier trace differing only in dims."""
    for cf in reversed(traces):
        if cf.in_tree != tree:
            continue
        merged: list[TensorSpec | None] = []
        for leaf, spec, plan in zip(leaves, specs, cf.in_plan):
            if spec is None:
                if isinstance(plan, TensorSpec) or leaf_key(leaf) != plan:
                    break
                merged.append(None)
            elif not isinstance(plan, TensorSpec) or plan.dtype != spec.dtype:
                break
            elif plan.shape is None or spec.shape is None or len(plan.shape) != len(spec.shape):
                break
            else:
                merged.append(plan.most_specific_common(spec))
        else:
            return merged
    return None


class RetraceMonitor:
    """Counts consecutive traces and warns once when every recent call traced."""

    __slots__ = ("streak", "warned", "relaxing")

    def __init__(self, relaxing: bool = False) -> None:
        self.relaxing = relaxing  # reduce_retracing is on already: the advice leaves it out
        self.streak = 0
        self.warned = False

    def traced(self, name: str, reason: str) -> None:
        """Record a trace (a cache miss) and why it traced (see history.retrace_reason)."""
        self.streak += 1
        if self.streak >= LIMIT and not self.warned:
            self.warned = True
            warnings.warn(self._message(name, reason), RetracingWarning, stacklevel=_user_stacklevel())

    def _message(self, name: str, reason: str) -> str:
        remedies = (
            "give an input_signature" if self.relaxing
            else "give an input_signature, or use reduce_retracing=True"
        )
        return (
            f"{LIMIT} of the last {LIMIT} calls to {name} traced a new graph; the last one because "
            f"{reason}. Tracing is slow; a Python number is a constant of its trace, so pass values "
            f"that change as NumPy arrays, {remedies}. f.experimental_get_tracing_history() lists "
            f"every trace and its reason."
        )


def param_keys(names: tuple[str, ...], tree: Any, leaves: list) -> dict[str, Any]:
    """Each parameter's share of a cache key (to name the one that keeps changing)."""
    result, start = {}, 0
    for name, child in zip(names, tree.children):
        stop = start + child.num_leaves
        result[name] = (child, tuple(leaf_key(leaf) for leaf in leaves[start:stop]))
        start = stop
    return result


def _user_stacklevel() -> int:
    """The stacklevel of the innermost frame outside autograph and runtime."""
    import sys

    frame = sys._getframe(2)
    level = 2
    while frame is not None and is_internal_file(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level
