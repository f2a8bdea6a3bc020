"""The `ag__` object converted code sees: the runtime's operators plus converted_call.

Generated code reaches everything through this one name, passed to the
converted function in a closure cell of its own, so the user's globals are
never touched.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable

import runtime.operators as operators
from runtime.operators.builtins import OVERRIDES

__all__ = ["build_namespace"]


def build_namespace(converted_call: Callable[..., object]) -> types.ModuleType:
    """A fresh module holding every operator converted code may call, and `converted_call`.

    `converted_call` is given rather than imported: it converts the functions
    it calls with this very namespace (`autograph.converted_call.AG`)."""
    namespace = types.ModuleType("ag__", "Operators called by converted code.")
    for name in operators.__all__:
        setattr(namespace, name, getattr(operators, name))
    namespace.converted_call = converted_call
    for builtin, operator in OVERRIDES.items():  # ag__.len, ag__.range: builtins the runtime stages
        name = getattr(builtin, "__name__", None)
        if name is not None and getattr(builtins, name, None) is builtin:
            setattr(namespace, name, operator)
    return namespace
