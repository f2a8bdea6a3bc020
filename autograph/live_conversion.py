"""Live functions: a function object converted, compiled against its own globals and cells, cached.

    loaded = load_converted(func, Options())   # LoadedCode: the code object and its source
    new = convert_live(func, Options(), AG)    # a function sharing func's globals, cells, defaults

The source comes from `inspect` (see source/parsing); the conversion itself is
the pipeline's (`convert_node`, `generate`). The compiled code is cached by
the user's code object and the options, weakly, so unloading a function frees
its conversion; every conversion registers its generated file's source map.
"""

from __future__ import annotations

import dataclasses
import linecache
import threading
import types
import weakref

import gast

from autograph.converters.context import Options
from autograph.pipeline import Generated, Settings, collection_paused, convert_node, generate
from autograph.source.deep import retry_deep, run_deep
from autograph.source.loader import (
    FACTORY_LINES,
    LoadedCode,
    bind_function,
    compile_function,
    unique_filename,
)
from autograph.source.nesting import too_deep_error
from autograph.source.origins import LineOrigins
from autograph.source.parsing import parse_function, strip_decorators
from autograph.source.resolution import LiveNames
from runtime.ir.origin import register_source_map

__all__ = ["convert_live", "load_converted", "source_map"]


def source_map(generated: Generated, settings: Settings, function: str, filename: str) -> LineOrigins:
    """Line `n` of the generated file `filename` -> the user's Origin (file, line, text), made on first use."""
    last_line = FACTORY_LINES + generated.source.count("\n")
    lines = linecache.getlines(settings.filename)
    user_file, first_line = settings.filename, settings.first_line
    return LineOrigins(filename, generated.starts, last_line, user_file, first_line, lines, function, FACTORY_LINES)


_LOCK = threading.Lock()
# code object -> {(options, file): LoadedCode}; weak, so unloading a function frees its
# conversion. Code objects compare equal without their file (the same function at the same
# line of two notebook cells), and a conversion's source map names one file.
_CODE_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def load_converted(func: types.FunctionType, options: Options) -> LoadedCode:
    """The compiled conversion of `func`'s code (cached by code object, file and options)."""
    code = func.__code__
    key = (options, code.co_filename)
    with _LOCK:
        found = _CODE_CACHE.get(code, {}).get(key)
    if found is not None:
        return found
    with collection_paused():
        loaded = _load(func, options)
    with _LOCK:
        _CODE_CACHE.setdefault(code, {})[key] = loaded
    return loaded


def _load(func: types.FunctionType, options: Options) -> LoadedCode:
    """`_load_once`, retried on a deep stack for deeply nested code (a conversion is pure).

    What no stack holds (brackets nested past Python's tokenizer, its
    parser's stack) is a ConversionError at the user's deepest line.
    """
    try:
        return retry_deep(lambda: _load_once(func, options))
    except (RecursionError, MemoryError, _GeneratedSyntaxError) as error:
        cause = error.__cause__ if isinstance(error, _GeneratedSyntaxError) else error
        raise run_deep(lambda: _too_deep(func, cause)) from None


class _GeneratedSyntaxError(Exception):
    """Python refused to compile the converted text (brackets nested past its tokenizer's 200)."""


def _too_deep(func: types.FunctionType, error: BaseException):
    parsed = parse_function(func)
    return too_deep_error(func.__qualname__, parsed.filename, parsed.node, parsed.first_line, error)


def _load_once(func: types.FunctionType, options: Options) -> LoadedCode:
    code = func.__code__
    parsed = parse_function(func)
    names = LiveNames(func)
    settings = Settings(
        filename=parsed.filename,
        first_line=parsed.first_line,
        options=options,
        is_ours=names.is_ours_decorator,
        module_of=names.module_of,
        value_of=names.value_of,
        indent=parsed.indent,
        in_class="__class__" in code.co_freevars,
    )
    node = parsed.node
    if isinstance(node, gast.FunctionDef):
        strip_decorators(node, names.is_ours_decorator)
    convert_node(node, settings)
    generated = generate(node)
    filename = unique_filename(parsed.filename, func.__qualname__)
    try:
        loaded = compile_function(generated.source, code.co_name, code.co_freevars, filename, generated.continued)
    except SyntaxError as error:
        if "too many" not in error.msg and "too complex" not in error.msg:
            raise  # our own bug, reported as it is
        raise _GeneratedSyntaxError() from error  # nested past Python's own limits: the user's line to split
    register_source_map(filename, source_map(generated, settings, func.__qualname__, filename))
    if staged_nesting_bound(generated.source) > DEEP_TRACE:
        loaded = dataclasses.replace(loaded, deep=True)
    return loaded


# more possibly nested staged constructs than this: traced on a deep stack. A staged if
# costs about a dozen frames of the trace, so the default limit holds some 80 nested
DEEP_TRACE = 40


def staged_nesting_bound(source: str) -> int:
    """At most how deeply the staged constructs of converted `source` can nest when traced:
    one level per control-flow call, lazy operand or helper function."""
    return source.count("ag__.") + source.count("lambda") + source.count("def ")


def convert_live(func: types.FunctionType, options: Options, namespace: object) -> types.FunctionType:
    """A converted copy of `func` bound to its globals, closure cells and defaults."""
    return bind_function(load_converted(func, options), func, namespace)
