"""Builtins in converted code that stage when given Tensors (len, range, int, ...).

`OVERRIDES` maps a builtin to its operator; `converted_call` calls the
operator instead of the builtin. Each operator falls back to the builtin when
no argument is staged, so Python mode is unchanged. `print` is not here: in
converted code it stays Python's print (it runs while tracing; ag.print runs
with the graph).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.operators.getitem import take
from runtime.tracing.frontend import get_frontend

__all__ = ["OVERRIDES", "PYTHON_VALUES", "AS_IS_FOR_PYTHON_VALUES", "len_", "range_", "abs_", "int_",
           "float_", "bool_", "min_", "max_", "enumerate_", "zip_"]


_RANGE = builtins.range

# Values of these exact types are never staged: Python mode answers without asking a frontend.
PYTHON_VALUES = frozenset({int, float, bool, complex, str, bytes, type(None), list, tuple, dict, set, range})


def _staged(value: object) -> bool:
    if type(value) in PYTHON_VALUES:
        return False
    frontend = get_frontend(value)
    return (
        frontend.is_staged(value)
        or frontend.is_tensor_array(value)
        or bool(getattr(value, "__autograph_staged_iterable__", False))
    )


def _any_staged(values: tuple) -> bool:
    """`any(_staged(v) for v in values)` without a generator: range() in a loop calls it often."""
    for value in values:
        if type(value) not in PYTHON_VALUES and _staged(value):
            return True
    return False


def len_(value: Any) -> Any:
    """len: the static first dimension when known, else the staged one."""
    if type(value) in PYTHON_VALUES:
        return builtins.len(value)
    from runtime.operators.staged_lists import StagedList

    frontend = get_frontend(value)
    if frontend.is_tensor_array(value):
        return value.size()
    if isinstance(value, StagedList):
        return value.array.size()
    if frontend.is_staged(value) or isinstance(value, _iterables().StagedIterable):
        return _iterables().as_staged_iterable(value).staged_length()
    return builtins.len(value)


def range_(*args: Any) -> Any:
    """range with a staged bound is ag.range (one staged loop).

    Python-mode calls with int bounds do not come here: converted_call calls
    the builtin directly (AS_IS_FOR_PYTHON_VALUES).
    """
    if not _any_staged(args):
        try:
            return _RANGE(*args)
        except TypeError:
            if any(a is None for a in args) and get_frontend().is_tracing():
                from runtime.ops.calls import unknown_dimension

                raise unknown_dimension(f"range({', '.join(map(repr, args))})") from None
            raise
    from runtime.operators.ranges import range_ as staged_range

    return staged_range(*args)


def abs_(value: Any) -> Any:
    return np.abs(value) if _staged(value) else builtins.abs(value)


def _cast(builtin: Callable, dtype: type) -> Callable:
    def cast(value: Any = 0, *args: Any) -> Any:
        if type(value) in PYTHON_VALUES:
            return builtin(value, *args) if args else builtin(value)
        if not args and get_frontend(value).is_staged(value):
            return value if value.dtype == dtype else value.astype(dtype)
        return builtin(value, *args)

    cast.__name__ = f"{builtin.__name__}_"
    cast.__doc__ = f"{builtin.__name__}(t) on a Tensor: a cast to {np.dtype(dtype).name}."
    return cast


int_ = _cast(builtins.int, np.int64)
float_ = _cast(builtins.float, np.float64)
bool_ = _cast(builtins.bool, np.bool_)


def _extreme(builtin: Callable, pairwise: Callable, reduce: Callable) -> Callable:
    def extreme(*args: Any, **kwargs: Any) -> Any:
        if kwargs or not _any_staged(args):
            if len(args) == 1 and not kwargs and type(args[0]) in (list, tuple) and _any_staged(args[0]):
                return extreme(*args[0]) if len(args[0]) > 1 else args[0][0]  # max([a, b]) is max(a, b)
            return builtin(*args, **kwargs)
        if len(args) == 1:
            return reduce(args[0], axis=0)
        result = args[0]
        for arg in args[1:]:
            result = pairwise(result, arg)
        return result

    extreme.__name__ = f"{builtin.__name__}_"
    extreme.__doc__ = f"{builtin.__name__} over Tensors: elementwise, or along the first axis."
    return extreme


min_ = _extreme(builtins.min, np.minimum, np.min)
max_ = _extreme(builtins.max, np.maximum, np.max)


def enumerate_(iterable: Any, start: Any = 0) -> Any:
    """enumerate over a staged iterable: iterated by one staged loop."""
    if _staged(iterable):
        module = _iterables()
        return module.EnumerateIterable(module.as_staged_iterable(iterable), start)
    return builtins.enumerate(iterable, start)


def zip_(*iterables: Any) -> Any:
    """zip with any staged argument: iterated by one staged loop, as long as the shortest."""
    if _any_staged(iterables):
        module = _iterables()
        return module.ZipIterable([module.as_staged_iterable(it) for it in iterables])
    return builtins.zip(*iterables)


def _iterables():
    from runtime.operators import staged_iterables

    return staged_iterables


OVERRIDES: dict[object, Callable] = {
    builtins.len: len_,
    builtins.range: range_,
    builtins.abs: abs_,
    builtins.int: int_,
    builtins.float: float_,
    builtins.bool: bool_,
    builtins.min: min_,
    builtins.max: max_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
}


def _numpy_overrides() -> dict[object, Callable]:
    from runtime.tracing.creation import CALL_OVERRIDES

    return dict(CALL_OVERRIDES)


# Builtins whose operator, called without keywords on PYTHON_VALUES only, is the builtin
# itself: converted_call checks the argument types and calls the builtin directly, which
# saves a call per `range(...)` or `int(...)` in a Python-mode loop. (np.asarray is not one:
# a list of Tensors is a Python value it stages; nor are min and max: max([t, 2.5]).)
AS_IS_FOR_PYTHON_VALUES: frozenset = frozenset(OVERRIDES) - {builtins.min, builtins.max}

OVERRIDES.update(_numpy_overrides())  # np.asarray/np.array of Tensors (NumPy does not dispatch them)
OVERRIDES[np.take] = take  # np.take(TABLE, i) of a captured array: NumPy dispatches on TABLE alone
