"""Loader: generated source -> a live function that shares the user's globals and closure cells.

The generated text is compiled inside a factory whose parameters are `ag__`
and the user function's free variables, so the compiler makes them free
variables of the new code. The factory is never called: the new code object
is taken from its constants and bound with `types.FunctionType` to the
user's own `__globals__` and the user's own cells (plus one new cell holding
`ag__`), so closures see later changes and globals stay live.

Each generated file gets a unique name registered in linecache, so
tracebacks, `inspect.getsource` and pdb show the generated code, for as long
as the new code object lives (every bound copy shares it).

Why the text is compiled rather than the converted tree: `compile` of an
`ast` tree skips the parse (about 85 us of the 420 a corpus function's text
takes), but the code must be the text's, columns included (tracebacks draw
their carets from them), so every node would first need the line and columns
it has in the text and its class changed from gast to ast. Setting those as
the emitter prints costs about 50 us before a single column is computed:
too little is left to pay for a printer that tracks columns. Printing the
text only when asked runs into linecache: it never realises a lazy entry for a
`<...>` name, and for any other name a missing entry shows the lines of the
user's module instead (linecache asks the module's loader for them).
"""

from __future__ import annotations

import itertools
import linecache
import re
import textwrap
import threading
import types
from dataclasses import dataclass

from runtime.ir.origin import tie_to_code

__all__ = ["LoadedCode", "compile_function", "bind_function"]

_COUNTER = itertools.count()
_LOCK = threading.Lock()
FACTORY_LINES = 2  # generated line n is file line n + FACTORY_LINES


@dataclass(frozen=True)
class LoadedCode:
    """A compiled converted function, not yet bound to globals and cells."""

    code: types.CodeType
    filename: str
    source: str  # the converted function's source, as to_code shows it
    deep: bool = False  # its staged constructs may nest deeper than the default stack holds (see deep)


def unique_filename(user_file: str, qualname: str) -> str:
    with _LOCK:
        number = next(_COUNTER)
    base = user_file.replace("\\", "/").rsplit("/", 1)[-1]
    return f"<autograph: {base}:{qualname}#{number}>"


def compile_function(
    source: str, name: str, freevars: tuple[str, ...], filename: str, continued: tuple[int, ...] = ()
) -> LoadedCode:
    """Compile `source` (one def, or one lambda expression) as a function with `freevars` free.

    `continued` lists the lines of `source` that begin inside a string literal
    (a docstring's second line on): they are not indented into the factory.
    """
    params = ", ".join(("ag__",) + tuple(v for v in freevars if v != "ag__"))
    if name == "<lambda>":
        header, body = "pass", f"return {source}"
    else:
        # the def must not bind its own name in the factory: a recursive call is a global lookup
        header, body = ("pass" if name in freevars else f"global {name}"), source
    indented = _indent_except(body, continued) if continued else _indent(body)
    text = f"def __ag_factory__({params}):\n    {header}\n{indented}\n"
    code = compile(text, filename, "exec", dont_inherit=True)
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    factory = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    found = [c for c in factory.co_consts if isinstance(c, types.CodeType) and c.co_name == name]
    tie_to_code(filename, found[0])  # the factory's code dies here; this one runs every copy
    return LoadedCode(found[0], filename, source)


# a blank line (or one of whitespace alone), which textwrap.indent leaves as it is
_BLANK_LINE = re.compile(r"\n\s*\n")
# what str.splitlines breaks ASCII text at besides \n
_OTHER_BREAKS = ("\r", "\v", "\f", "\x1c", "\x1d", "\x1e")


def _indent(text: str) -> str:
    """`textwrap.indent(text, "    ")`: four spaces before each line that is not blank.

    Converted text has neither blank lines nor line breaks but `\\n`, so it
    takes one replace (about 6 us a corpus function with the checks) rather
    than a walk over its lines (about 19 us). Other text (non-ASCII text too)
    takes the walk.
    """
    regular = (
        text.endswith("\n")
        and not text[: text.index("\n")].isspace()
        and text[0] != "\n"
        and _BLANK_LINE.search(text) is None
        and text.isascii()
        and not any(other in text for other in _OTHER_BREAKS)
    )
    if regular:
        return "    " + text[:-1].replace("\n", "\n    ") + "\n"
    return textwrap.indent(text, "    ")


def _indent_except(text: str, continued: tuple[int, ...]) -> str:
    """`_indent(text)` but for the lines listed (1-based), which are inside a string literal:
    four more spaces there would be four more characters of the string."""
    skip = set(continued)
    lines = text.split("\n")
    return "\n".join(
        [line if number in skip or not line.strip() else "    " + line for number, line in enumerate(lines, 1)]
    )


def bind_function(loaded: LoadedCode, original: types.FunctionType, namespace: object) -> types.FunctionType:
    """A function running `loaded.code` with the original's globals, cells, defaults and attributes."""
    code = loaded.code
    cells = dict(zip(original.__code__.co_freevars, original.__closure__ or ()))
    closure = tuple(types.CellType(namespace) if var == "ag__" else cells[var] for var in code.co_freevars)
    new = types.FunctionType(code, original.__globals__, original.__name__, original.__defaults__, closure or None)
    new.__kwdefaults__ = original.__kwdefaults__
    new.__dict__.update(original.__dict__)
    new.__qualname__ = original.__qualname__
    new.__module__ = original.__module__
    new.__doc__ = original.__doc__
    new.__annotations__ = original.__annotations__
    new.__autograph_converted_from__ = original
    if loaded.deep:
        new.__autograph_deep__ = True  # traced on a deep stack (autograph.tracing.trace)
    return new
