"""ConversionError messages: what happened, where (file:line, the line, a caret), the rule, the fix."""

from __future__ import annotations

import linecache
from collections.abc import Callable

from runtime.errors import ConversionError
from runtime.origin import Origin

__all__ = ["conversion_error", "no_source_error", "source_changed_error"]


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
