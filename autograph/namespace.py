"""The `ag__` object converted code sees: the runtime's operators plus converted_call.

Generated code reaches everything through this one name, passed to the
converted function in a closure cell of its own, so the user's globals are
never touched.
"""

from __future__ import annotations

import types

import runtime.operators as operators
from autograph.converted_call import converted_call

__all__ = ["AG", "build_namespace"]


def build_namespace() -> types.ModuleType:
    """A fresh module holding every operator converted code may call."""
    namespace = types.ModuleType("ag__", "Operators called by converted code.")
    for name in operators.__all__:
        setattr(namespace, name, getattr(operators, name))
    namespace.converted_call = converted_call
    return namespace


AG = build_namespace()
