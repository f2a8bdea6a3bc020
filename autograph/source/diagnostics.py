"""ConversionError messages: what happened, where (file:line, the line, a caret), the rule, the fix."""

from __future__ import annotations

import linecache
from collections.abc import Callable

from runtime.ir.errors import ConversionError
from runtime.ir.origin import Origin

__all__ = ["conversion_error", "no_source_error"]


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
