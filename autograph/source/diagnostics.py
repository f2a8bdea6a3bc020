"""ConversionError messages: what happened, where (file:line, the line, a caret), the rule, the fix."""

from __future__ import annotations

import linecache
import types
from collections.abc import Callable

from runtime.ir.errors import ConversionError
from runtime.ir.origin import Origin

__all__ = [
    "conversion_error", "no_source_error", "source_changed_error", "not_a_function_error", "call_method",
]


def conversion_error(
    what: str,
    filename: str,
    line: int,
    rule: str,
    fix: str,
    *,
    text: str | None = None,
    col: int = 0,
    function: str = "",
) -> ConversionError:
    """A ConversionError whose message shows the user's line with a caret."""
    if text is None:
        text = linecache.getline(filename, line)
    origin = Origin(filename, line, text, function, col)
    message = f"{what}\n{origin.excerpt()}\n{rule[:1].upper()}{rule[1:]}. Fix: {fix}."
    error = ConversionError(message)
    error.origin = origin
    return error


def _describe(func: object) -> str:
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    return repr(name)


def no_source_error(func: Callable) -> ConversionError:
    """The error for builtins, C functions and code without source (`python -c`, bare exec)."""
    code = getattr(func, "__code__", None)
    where = f" (defined in {code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    message = (
        f"cannot convert {_describe(func)}{where}: its source code is not available.\n"
        "The converter reads a function's source; builtins, C functions and code typed at "
        "`python -c` or passed to exec without a file have none. "
        "Fix: define the function in a file (or a notebook cell), "
        "or mark it with ag.do_not_convert to call it as is."
    )
    return ConversionError(message)


def source_changed_error(func: Callable, found: str) -> ConversionError:
    """The error for a function whose file was edited after it was imported.

    The converter reads the def from the file on disk; when the def the
    running code was compiled from is no longer where the code says (it moved,
    or was renamed), converting what is there now would run other code.
    """
    code = func.__code__
    message = (
        f"cannot convert {_describe(func)}: its source file changed on disk since it was imported.\n"
        f"The running function was compiled from `def {code.co_name}` at "
        f"{code.co_filename}:{code.co_firstlineno}, but {found}, so the converter cannot read the "
        "source the function runs. Fix: reload its module (importlib.reload) or restart Python, "
        "then convert it again."
    )
    return ConversionError(message)


def call_method(func: object) -> types.FunctionType | None:
    """The Python `__call__` a callable object's class defines (a Function's function), else None."""
    if isinstance(func, type):
        return None
    call = next((vars(c)["__call__"] for c in type(func).__mro__ if "__call__" in vars(c)), None)
    call = getattr(call, "python_function", call)
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
        inner = getattr(wrapped, "python_function", wrapped)
        return ConversionError(
            f"cannot convert {name!r}: it is a {type(func).__qualname__} object wrapping "
            f"{inner!r}, not a function. Fix: pass the function it wraps, "
            f"{entry}({name}.__wrapped__), or the function itself before it was wrapped."
        )
    if call_method(func) is not None:
        kind = type(func).__qualname__
        return ConversionError(
            f"cannot show an object of class {kind!r} converted: it is a callable object, and autograph "
            f"converts functions. Fix: pass its method, {entry}({kind}.__call__)."
        )
    return no_source_error(func)
