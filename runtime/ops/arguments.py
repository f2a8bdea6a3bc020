"""Binding a NumPy call's arguments to its parameters, and the ones that must be concrete.

A shape rule reads arguments by name (`axis`, `keepdims`); an argument that
decides a result's shape must be a Python value while tracing, never a
tensor (`require_concrete` says which and why).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from runtime.ir.types import TensorType
from runtime.ops.calls import staging_error
from runtime.ops.shapes import flat_items

__all__ = ["SHAPE_ARGUMENTS", "signature_of", "bind_arguments", "require_concrete"]


# Arguments whose value decides a result's shape: they must be Python values, not tensors.
SHAPE_ARGUMENTS = frozenset({
    "axis", "axes", "axis1", "axis2", "keepdims", "source", "destination", "reps", "pad_width",
    "num", "k", "offset", "n", "new_shape", "shape", "newshape",
})


@functools.cache
def signature_of(fn: Callable) -> inspect.Signature:
    """`inspect.signature`, cached: rules bind every staged call's arguments with it."""
    return inspect.signature(fn)


_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD


@functools.cache
def _plain_parameters(fn: Callable) -> tuple[int, tuple[str, ...], frozenset[str]] | None:
    """How many of `fn`'s parameters are positional, all their names and the required ones,
    when each is positional-or-keyword or keyword-only (no *args, **kwargs, positional-only)."""
    try:
        parameters = list(signature_of(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    kinds = [p.kind for p in parameters]
    if any(kind not in (_POSITIONAL, inspect.Parameter.KEYWORD_ONLY) for kind in kinds):
        return None
    positional = kinds.count(_POSITIONAL)
    if kinds[:positional] != [_POSITIONAL] * positional:
        return None
    required = frozenset(p.name for p in parameters if p.default is inspect.Parameter.empty)
    return positional, tuple(p.name for p in parameters), required


def bind_arguments(fn: Callable, args: tuple, kwargs: dict) -> dict[str, Any]:
    """`signature_of(fn).bind(*args, **kwargs).arguments`, by name in signature order.

    Shape rules bind every staged call, and inspect's general binder costs
    tens of µs on a NumPy signature such as np.sum's seven parameters. Most
    NumPy functions take plain parameters only, which bind by zipping names
    with the positional arguments and adding the keywords; anything else (or
    a call inspect would reject, so the same TypeError is raised) goes to inspect.
    """
    plain = _plain_parameters(fn)
    if plain is not None and len(args) <= plain[0]:
        _, names, required = plain
        bound = dict(zip(names, args))
        if kwargs:
            if any(key in bound or key not in names for key in kwargs):
                return signature_of(fn).bind(*args, **kwargs).arguments
            bound.update(kwargs)
            bound = {name: bound[name] for name in names if name in bound}
        if required.issubset(bound):
            return bound
    return signature_of(fn).bind(*args, **kwargs).arguments


def require_concrete(fn: Callable, args: tuple, kwargs: dict, names: frozenset[str] = SHAPE_ARGUMENTS) -> None:
    """A StagingError when a shape-deciding argument (axis=, reps=, num=...) is a tensor."""
    try:
        bound = bind_arguments(fn, args, kwargs)
    except (TypeError, ValueError):
        return
    for name, value in bound.items():
        if name in names and any(isinstance(v, TensorType) for v in flat_items([value])):
            raise staging_error(
                f"np.{getattr(fn, '__name__', 'function')}: the {name}= argument decides the result's "
                f"shape, so it must be a Python value, not a tensor"
            )
