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

from autograph.converted_call import DO_NOT_CONVERT
from autograph.converters.context import Options
from autograph.display import Code
from autograph.live_conversion import convert_live, load_converted
from autograph.namespace import AG
from autograph.source.diagnostics import no_source_error
from runtime.errors import ConversionError

__all__ = ["convert", "to_code", "do_not_convert"]

F = TypeVar("F", bound=Callable)


def _python_function(func: object) -> object:
    """The plain function behind a Function object (`python_function`), else `func`."""
    inner = getattr(func, "python_function", None)
    return inner if inner is not None else func


def convert(func: Callable, *, recursive: bool = True) -> Callable:
    """The converted function: behaves like `func` on Python values, stages control flow on Tensors.

    A bound method, a `functools.partial`, a `staticmethod`/`classmethod`
    object or a callable object is converted inside and rewrapped (its
    bound arguments or object go with it), as `ag.function` does.
    `recursive=False` leaves the calls it makes unconverted.
    """
    func = _python_function(func)
    if getattr(func, DO_NOT_CONVERT, False) or getattr(func, "__autograph_converted__", False):
        return func
    if isinstance(func, types.MethodType):
        return types.MethodType(convert(func.__func__, recursive=recursive), func.__self__)
    if isinstance(func, functools.partial):
        return functools.partial(convert(func.func, recursive=recursive), *func.args, **func.keywords)
    if isinstance(func, (staticmethod, classmethod)):
        return type(func)(convert(func.__func__, recursive=recursive))
    if not isinstance(func, types.FunctionType):
        call = _call_method(func)
        if call is None:
            raise not_a_function_error(func, "ag.convert")
        return types.MethodType(convert(call, recursive=recursive), func)
    converted = convert_live(func, Options(recursive=recursive), AG)
    converted.__autograph_converted__ = True
    return converted


def to_code(func: Callable) -> str:
    """The converted source of `func` (a function, method, lambda, partial or Function object)."""
    func = _python_function(func)
    while isinstance(func, (types.MethodType, staticmethod, classmethod, functools.partial)):
        func = func.func if isinstance(func, functools.partial) else func.__func__
    if not isinstance(func, types.FunctionType):
        raise not_a_function_error(func, "ag.to_code")
    return Code(_wrapper_note(func) + load_converted(func, Options()).source)


def _call_method(func: object) -> types.FunctionType | None:
    """The Python `__call__` a callable object's class defines (a Function's function), else None."""
    if isinstance(func, type):
        return None
    call = next((vars(c)["__call__"] for c in type(func).__mro__ if "__call__" in vars(c)), None)
    call = _python_function(call)
    return call if isinstance(call, types.FunctionType) else None


def not_a_function_error(func: object, entry: str) -> ConversionError:
    """What `func` is, when it is not a function autograph can convert, and what to pass instead.

    Only builtins and code without a file get "source code is not available".
    """
    name = getattr(func, "__qualname__", None) or type(func).__qualname__
    if isinstance(func, type):
        return ConversionError(
            f"cannot convert {name!r}: it is a class, and autograph converts functions. "
            f"Fix: pass one of its methods, as {entry}({name}.method_name)."
        )
    wrapped = getattr(func, "__wrapped__", None)
    if wrapped is not None and hasattr(func, "cache_info"):
        keep = "" if entry != "ag.convert" else (
            f"; to keep a cache, wrap the converted function: functools.lru_cache(ag.convert({name}.__wrapped__))"
        )
        return ConversionError(
            f"cannot convert {name!r}: it is a functools.lru_cache (or functools.cache) wrapper, and "
            f"converting the function inside would bypass its cache. Fix: pass the function it wraps, "
            f"{entry}({name}.__wrapped__){keep}."
        )
    if wrapped is not None:
        return ConversionError(
            f"cannot convert {name!r}: it is a {type(func).__qualname__} object wrapping "
            f"{_python_function(wrapped)!r}, not a function. Fix: pass the function it wraps, "
            f"{entry}({name}.__wrapped__), or the function itself before it was wrapped."
        )
    if _call_method(func) is not None:
        kind = type(func).__qualname__
        return ConversionError(
            f"cannot show an object of class {kind!r} converted: it is a callable object, and autograph "
            f"converts functions. Fix: pass its method, {entry}({kind}.__call__)."
        )
    return no_source_error(func)


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
