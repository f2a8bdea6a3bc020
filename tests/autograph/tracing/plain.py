"""`traced`: ag.function without conversion, for tests of the trace layer alone."""

from __future__ import annotations

import autograph as ag

__all__ = ["traced"]


def traced(func=None, **options):
    """`ag.function(func, autograph=False, **options)`, bare or with arguments."""
    options.setdefault("autograph", False)
    if func is None:
        return lambda f: ag.function(f, **options)
    return ag.function(func, **options)
