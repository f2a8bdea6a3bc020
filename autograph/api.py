"""`ag.convert`, `ag.to_code`, `ag.do_not_convert`: the converter's public entry points.

    def f(x):
        while x > 1:
            x = x // 2
        return x

    ag.to_code(f)            # the converted source, as text
    g = ag.convert(f)        # same results as f on Python/NumPy values; stages on Tensors
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import TypeVar

from autograph.converted_call import DO_NOT_CONVERT, convert_function
from autograph.converters.context import Options
from autograph.display import Code
from autograph.live_conversion import load_converted
from autograph.python_mode import fast_copy
from autograph.source.diagnostics import call_method, not_a_function_error
from autograph.source.resolution import DECORATOR_MARK
from runtime.tracing.fallbacks import strict_mode

__all__ = ["convert", "to_code", "do_not_convert"]

F = TypeVar("F", bound=Callable)


def _python_function(func: object) -> object:
    """The plain function behind a Function object (`python_function`), else `func`."""
    inner = getattr(func, "python_function", None)
    return inner if inner is not None else func


def convert(func: Callable, *, recursive: bool = True, strict: bool = False) -> Callable:
    """The converted function: behaves like `func` on Python values, stages control flow on Tensors.

    A bound method, a `functools.partial`, a `staticmethod`/`classmethod`
    object or a callable object is converted inside and rewrapped (its
    bound arguments or object go with it), as `ag.function` does.
    `recursive=False` leaves the calls it makes unconverted. `strict=True`:
    called while a Function traces, every fallback (a NumPy random draw, a
    loop unrolled more than 100 times, a call that could not be converted or
    left unconverted with control flow, staged control flow inside try/with)
    is a StagingError instead.
    """
    func = _python_function(func)
    if getattr(func, DO_NOT_CONVERT, False) or getattr(func, "__autograph_converted__", False):
        return _strictly(func) if strict else func
    if isinstance(func, types.MethodType):
        return types.MethodType(convert(func.__func__, recursive=recursive, strict=strict), func.__self__)
    if isinstance(func, functools.partial):
        return functools.partial(convert(func.func, recursive=recursive, strict=strict), *func.args, **func.keywords)
    if isinstance(func, (staticmethod, classmethod)):
        return type(func)(convert(func.__func__, recursive=recursive, strict=strict))
    if not isinstance(func, types.FunctionType):
        call = call_method(func)
        if call is None:
            raise not_a_function_error(func, "ag.convert")
        return types.MethodType(convert(call, recursive=recursive, strict=strict), func)
    converted = convert_function(func, recursive)
    return _strictly(converted) if strict else fast_copy(func, converted)


def _strictly(converted: Callable) -> Callable:
    """`converted`, run in strict mode (runtime.tracing.fallbacks): the calls it makes inherit it."""

    @functools.wraps(converted)
    def strict(*args: object, **kwargs: object) -> object:
        with strict_mode(True):
            return converted(*args, **kwargs)

    strict.__autograph_converted__ = True
    strict.__autograph_strict__ = converted  # what to_code shows
    return strict


def to_code(func: Callable) -> str:
    """The converted source of `func` (a function, method, lambda, partial or Function object)."""
    func = _python_function(func)
    func = getattr(func, "__autograph_strict__", func)
    if hasattr(func, "__autograph_staged__"):  # a fast copy (python_mode): its code may be the trampoline
        func = func.__autograph_converted_from__
    while isinstance(func, (types.MethodType, staticmethod, classmethod, functools.partial)):
        func = func.func if isinstance(func, functools.partial) else func.__func__
    if not isinstance(func, types.FunctionType):
        raise not_a_function_error(func, "ag.to_code")
    return Code(_wrapper_note(func) + load_converted(func, Options()).source)


def _wrapper_note(func: types.FunctionType) -> str:
    """A first comment when `func` is a decorator's wrapper that took its function's name.

    `functools.wraps` gives the wrapper `f`'s name, so `ag.function(logged(f))`
    runs the wrapper, converted; `f` is converted when the wrapper calls it
    (converted_call). to_code shows what runs, and says so.
    """
    wrapped = getattr(func, "__wrapped__", None)
    own = func.__code__.co_name
    if wrapped is None or own == func.__name__:
        return ""
    name = func.__name__
    return (
        f"# This is {own!r}, the wrapper a decorator made for {name!r} with functools.wraps: it is what\n"
        f"# runs. It calls {name!r} through ag__.converted_call, which converts {name!r} too; pass the\n"
        f"# wrapper's __wrapped__ to ag.to_code to read {name!r} converted.\n"
    )


def do_not_convert(func: F) -> F:
    """Mark `func` to be called as is from converted code; returns `func` unchanged."""
    target = func.__func__ if isinstance(func, types.MethodType) else func
    try:
        setattr(target, DO_NOT_CONVERT, True)
    except (AttributeError, TypeError):
        pass  # builtins and C functions are never converted anyway
    return func


setattr(do_not_convert, DECORATOR_MARK, True)  # the converter leaves @ag.do_not_convert as it is
