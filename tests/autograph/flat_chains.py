"""Every if/elif chain, conditional-expression chain and and/or/comparison chain of two or more
arms written in the flat form only long chains take, so the fuzzers exercise that form on the
programs they draw (which hold short chains)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from autograph.converters import conditional_expressions, if_chains, logical_expressions

__all__ = ["all_chains_flat"]


@contextlib.contextmanager
def all_chains_flat() -> Iterator[None]:
    modules = (if_chains, conditional_expressions, logical_expressions)
    saved = [module.NESTED_CHAIN for module in modules]
    for module in modules:
        module.NESTED_CHAIN = 1
    try:
        yield
    finally:
        for module, value in zip(modules, saved):
            module.NESTED_CHAIN = value
