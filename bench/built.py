"""Which of our parts exist yet, to tell "not built" from a real failure.

A staged example run while the converter is still a placeholder fails in
the trace (its `while` over a Tensor was never rewritten): that is the
converter not being built, and the table says so.
"""

from __future__ import annotations

from bench.harness import Missing, Result

__all__ = ["converter_built", "blame_unbuilt"]


def _probe(x):
    return x


def converter_built() -> bool:
    """True when `ag.convert` converts (the placeholder raises NotImplementedError)."""
    try:
        import autograph as ag

        ag.convert(_probe)
    except (NotImplementedError, ImportError, AttributeError):
        return False
    except Exception:  # noqa: BLE001 - built, but failing: not "not built"
        return True
    return True


def blame_unbuilt(result: Result | int) -> Result | int:
    """A failure while the converter is not built becomes "not built"."""
    if isinstance(result, Missing) and result.reason == "failed" and not converter_built():
        return Missing("not built", "ag.convert is not built, so control flow on tensors "
                       "is not converted and the trace stops at the first such statement")
    return result
