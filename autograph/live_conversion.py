"""Live functions: a function object converted, compiled against its own globals and cells, cached.

    loaded = load_converted(func, Options())   # LoadedCode: the code object and its source
    new = convert_live(func, Options(), AG)    # a function sharing func's globals, cells, defaults

The source comes from `inspect` (see source/parsing); the conversion itself is
the pipeline's (`convert_node`, `generate`). The compiled code is cached by
the user's code object and the options, weakly, so unloading a function frees
its conversion; every conversion registers its generated file's source map.
"""

from __future__ import annotations

import linecache
import threading
import types
import weakref

import gast

from autograph.converters.context import Options
from autograph.pipeline import Generated, Settings, collection_paused, convert_node, generate
from autograph.source.loader import (
    FACTORY_LINES,
    LoadedCode,
    bind_function,
    compile_function,
    unique_filename,
)
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
    loaded = compile_function(generated.source, code.co_name, code.co_freevars, filename, generated.continued)
    register_source_map(filename, source_map(generated, settings, func.__qualname__, filename))
    return loaded


def convert_live(func: types.FunctionType, options: Options, namespace: object) -> types.FunctionType:
    """A converted copy of `func` bound to its globals, closure cells and defaults."""
    return bind_function(load_converted(func, options), func, namespace)
