"""What a Function traces: its callable with control flow converted.

Plain functions go through the converter (`converted_call.convert_function`);
`functools.partial` objects and callable objects have their underlying
function converted; builtins, ufuncs and other C functions have no source
and nothing to convert, so they are traced as they are.
"""

from __future__ import annotations

import functools
import types
from typing import Any

from autograph.converted_call import convert_function
from autograph.source.diagnostics import not_a_function_error

__all__ = ["converted_callable"]


def converted_callable(func: Any) -> Any:
    """`func` converted: functions, partials and callable objects; builtins as they are."""
    if isinstance(func, functools.partial):
        return functools.partial(converted_callable(func.func), *func.args, **func.keywords)
    if isinstance(func, types.FunctionType):
        return convert_function(func)
    owners = () if isinstance(func, type) else type(func).__mro__
    call = next((vars(k)["__call__"] for k in owners if "__call__" in vars(k)), None)
    if isinstance(call, types.FunctionType):
        return types.MethodType(convert_function(call), func)
    if hasattr(func, "cache_info") and getattr(func, "__wrapped__", None) is not None:
        raise not_a_function_error(func, "ag.function")  # an lru_cache: it would cache Tensors
    return func  # builtins, ufuncs and other C functions have nothing to convert
