"""Pipeline: runs the converters over one function, in order, and prints the result.

    census (one walk: names, pass triggers, syntax checks)
    -> zero-argument super() of a method; asserts, `a if c else b` and and/or in try/with marked
    -> ifs whose branches only return become conditional expressions (conditional_returns)
    -> nested functions (each converted on its own)
    -> liveness as written, when a loop has break and else (written_liveness)
    -> directives, lists, asserts -> jumps out of finally -> break, continue, return  (bindings change)
    -> conditional expressions -> and/or, not, chains and calls (one walk: `_FUSED`)
    -> analyses (once) -> control flow -> hoisting, bindings, state cells

Passes with nothing to rewrite are skipped, and a function with no if, while
or for stops after the expression passes. Each conversion runs with the
cyclic garbage collector paused (`collection_paused`).

Two entries: `convert_source` here, for a file's text, which is never
imported or run, and `live_conversion.convert_live` for a function object
(source from inspect, compiled and bound to the user's globals and cells,
cached by code object and options).
"""

from __future__ import annotations

import dataclasses
import gc
import re
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import gast

from autograph.analysis import analyze
from autograph.analysis.activity import Activity
from autograph.analysis.census import Census, take_census
from autograph.converters import (
    asserts,
    bindings,
    break_statements,
    call_trees,
    catching,
    conditional_expressions,
    conditional_returns,
    continue_statements,
    control_flow,
    directives,
    finally_jumps,
    guards,
    hoisting,
    lists,
    logical_expressions,
    return_statements,
    state_cells,
    super_calls,
    unsupported,
    written_liveness,
)
from autograph.converters.context import Context, Options
from autograph.converters.expression_scope import rewrite_expressions
from autograph.source.emitter import emit
from autograph.source.naming import Namespace
from autograph.source.nesting import too_deep_error
from autograph.source.parsing import parse_source
from autograph.source.resolution import StaticNames
from runtime.ir.errors import ConversionError

__all__ = [
    "ConvertedFunction",
    "Generated",
    "Settings",
    "convert_node",
    "generate",
    "convert_source",
    "collection_paused",
]


@dataclass(frozen=True)
class Settings:
    """What converting one source file needs besides the tree: where it is, how names resolve."""

    filename: str
    first_line: int
    options: Options
    is_ours: Callable[[gast.expr], bool]
    module_of: Callable[[str], str | None]
    value_of: Callable[[str], object]
    indent: int = 0
    source_lines: list[str] | None = None
    # defined in a class body: it has a `__class__` cell, which `super()` reads (see super_calls)
    in_class: bool = False


def _context(settings: Settings, name: str, namespace: Namespace) -> Context:
    return Context(
        filename=settings.filename,
        first_line=settings.first_line,
        function_name=name,
        namespace=namespace,
        options=settings.options,
        module_of=settings.module_of,
        value_of=settings.value_of,
        source_lines=settings.source_lines,
        indent=settings.indent,
        in_class=settings.in_class,
    )


def convert_node(fn: gast.FunctionDef | gast.Lambda, settings: Settings) -> None:
    """Convert `fn` in place: every rewrite, nested functions first."""
    name = getattr(fn, "name", "<lambda>")
    census = take_census(fn, unsupported.CONSTRUCTS)
    ctx = _context(settings, name, Namespace(census.names))
    ctx.walrus = "walrus" in census.found
    ctx.lazy_operands = "ag__" in census.names
    if census.refused is not None:
        unsupported.refuse(census.refused, ctx)
    if isinstance(fn, gast.Lambda):
        _run_passes(fn, ctx, [conditional_expressions, logical_expressions, call_trees])
        return
    if "super" in census.names:
        super_calls.transform(fn, ctx)
    if census.found & _BLOCKS and census.found & _MARKED:
        # before the jump passes add flags and blocks of their own: the user's try/with blocks only
        ctx.within = catching.expressions_within(fn, ctx)
    if census.branches and "return" in census.found and conditional_returns.transform(fn, ctx):
        census = take_census(fn)  # ifs and returns became conditional expressions
    if not census.branches and not census.functions and not census.found & _JUMPS:
        # no if/while/for now or after the passes: nothing for the analyses and control flow to do
        _run_passes(fn, ctx, _needed_passes(fn, census))
        return
    activity = Activity.of_function(fn, declared=census.declared)
    # a nonlocal name is read by the enclosing function after any call: live everywhere, like a captured one;
    # only a function, lambda or class defined in fn captures anything
    captured = (activity.captured if census.scopes else frozenset()) | activity.nonlocals
    converted = False
    for nested in census.functions:
        if not any(settings.is_ours(d) for d in nested.decorator_list) and not unsupported.runs_as_written(nested):
            convert_node(nested, settings)
            converted = True
    if converted:  # the nested conversions added names and constructs
        census = take_census(fn)
        ctx.namespace = Namespace(census.names)
    if _LOOP_ELSE_BREAK <= census.found:
        written_liveness.record(fn, ctx, captured, activity)  # before break becomes a flag
    _run_passes(fn, ctx, _needed_passes(fn, census))
    if census.found & _EXITS and census.found & _JUMPS:
        finally_jumps.cancel_pending(fn, ctx)
    analyses = analyze(fn, captured, ctx.loop_flags, activity)
    guards.drop_dead_flags(fn, ctx.flag_stores, analyses)
    read_early = bindings.read_before_bound(fn, analyses)
    control_flow.transform(fn, ctx, analyses)
    analyses.cfg.unlink()
    hoisting.transform(fn, ctx)
    bindings.transform(fn, ctx.generated, ctx.walrus, read_early, analyses)
    state_cells.transform(fn, ctx.generated, ctx.walrus)


# blocks that may catch what their body raises, and the constructs inside them that name the block
_BLOCKS = frozenset({"try", "with"})
_MARKED = frozenset({"assert", "if_exp", "logical"})
# what the jump passes lower into ifs and flags
_JUMPS = frozenset({"break", "continue", "return", "loop_else"})
# a loop's `else:` and a `break`: the flag hides from the analyses what the function reads (written_liveness)
_LOOP_ELSE_BREAK = frozenset({"loop_else", "break"})
# what runs code while a jump leaves it, which may jump or raise and so cancel the jump
_EXITS = frozenset({"finally", "with"})


def _needed_passes(fn: gast.FunctionDef, census: Census | None = None) -> list[types.ModuleType]:
    """The rewrite passes, in order, less those with nothing to rewrite in `fn` (same output, faster).

    The break pass also moves a loop's `else:` after a loop without break; the
    break, continue and return passes write `not flag` guards and tests, which
    the logical pass then rewrites.
    """
    found = (census or take_census(fn)).found
    jumps = bool(found & {"break", "continue", "return"})
    wanted = (
        (directives, "set_loop_options" in found),
        (lists, "append" in found),
        (asserts, "assert" in found),
        (finally_jumps, jumps and "finally" in found),
        (break_statements, "break" in found or "loop_else" in found),
        (continue_statements, "continue" in found),
        (return_statements, "return" in found),
        (conditional_expressions, "if_exp" in found),
        (logical_expressions, jumps or "logical" in found),
        (call_trees, True),
    )
    return [converter for converter, needed in wanted if needed]


# expression passes whose rewrites, given together, one walk runs (see expression_scope): they
# act on different node classes and read nothing the other rewrites. Not conditional
# expressions: an if_exp call quotes its test as it reads before the and/or rewrite.
_FUSED = (logical_expressions, call_trees)


def _run_passes(fn: gast.FunctionDef | gast.Lambda, ctx: Context, passes: list[types.ModuleType]) -> None:
    """Run `passes` in order, adjacent fused expression passes in one walk of `fn`."""
    pending: dict[type, Callable] = {}
    for converter in passes:
        if converter in _FUSED:
            pending.update(converter.rewrites(fn, ctx))
            continue
        if pending:
            rewrite_expressions(fn, pending)
            pending = {}
        converter.transform(fn, ctx)
    rewrite_expressions(fn, pending)


# a one-name unpacking reads as a tuple: `(x,) = state` rather than `x, = state`
_SINGLE_STATE = re.compile(r"(\s*)(\w+,) = (\w+)")


def _one_name_unpackings(text: str) -> str:
    """`text` with each line `x, = state` written `(x,) = state`.

    Lines are matched one by one, and only those holding `, = `: one
    multi-line pattern tried at every character of the text cost about
    1% of a conversion.
    """
    if ", = " not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if ", = " in line:
            found = _SINGLE_STATE.fullmatch(line)
            if found is not None:
                lines[i] = f"{found[1]}({found[2]}) = {found[3]}"
    return "\n".join(lines)


@dataclass(frozen=True)
class Generated:
    """The converted source of one function and where its statements start (user line numbers)."""

    source: str
    starts: list[tuple[int, int]]  # (line of the source, the user's line, relative)
    continued: tuple[int, ...] = ()  # lines inside a string literal: indenting must skip them


def generate(fn: gast.FunctionDef | gast.Lambda) -> Generated:
    """Print a converted tree as readable source: one statement per line, no blank lines."""
    emitted = emit(fn)
    return Generated(_one_name_unpackings(emitted.text) + "\n", emitted.starts, emitted.continued)


@contextmanager
def collection_paused() -> Iterator[None]:
    """Keep the cyclic garbage collector from running while one conversion runs.

    A conversion builds trees of thousands of nodes that reference counting
    frees, but the collector starts whenever a few hundred more objects are
    alive than before, traversing them (and now and then the whole heap):
    about 15% of a conversion. Collection resumes when the conversion ends or
    raises. If it was off already (the caller's choice, or another thread
    converting) it is left as it is.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@dataclass
class ConvertedFunction:
    """One function of a converted file (`autograph convert`): its converted source or the error."""

    name: str
    qualname: str
    lineno: int
    code: str
    error: ConversionError | None = None
    kept: str = ""  # why a function only --all picked stays as written (a generator): not a failure


def convert_source(
    source: str, filename: str, names: Sequence[str] | None = None, all_functions: bool = False,
    *, first_line: int = 1, static: StaticNames | None = None,
) -> list[ConvertedFunction]:
    """Convert functions of a file's text without importing or running it.

    By default the functions decorated with this package's `function`
    decorator; `names` selects by name or qualname; `all_functions` takes every
    function not nested in another. `source` may be one part of a file (its
    top-level statements from line `first_line`, with `static`, the names the
    whole module binds): lines in results and errors are the file's.
    """
    module = parse_source(source, filename, first_line)
    static = StaticNames.of_module(module) if static is None else static
    settings = Settings(
        filename=filename,
        first_line=first_line,
        options=Options(),
        is_ours=static.is_ours_decorator,
        module_of=static.module_of,
        value_of=static.value_of,
        source_lines=source.splitlines(keepends=True),
    )
    results = []
    for qualname, node in _top_functions(module):
        wanted = (
            all_functions
            or (names is not None and (node.name in names or qualname in names))
            or (names is None and any(static.is_function_decorator(d) for d in node.decorator_list))
        )
        if wanted:
            asked = _asked_for(node, qualname, names, static)  # before conversion drops the decorators
            with collection_paused():
                in_class = dataclasses.replace(settings, in_class="." in qualname)  # a method
                result = _convert_one(node, qualname, in_class)
            # only a failure pays for the generator test (a walk of the function)
            if result.error is not None and not asked and _runs_as_written(node):
                kind = _kind_kept(node)
                result = ConvertedFunction(node.name, qualname, result.lineno, "", kept=kind)
            results.append(result)
            node.body = [gast.Pass()]  # its converted tree is done with: memory stays per function
    return results


def _runs_as_written(node: gast.AST) -> bool:
    """Generators, coroutines, try/except*: converted code calls them as they are, never converted."""
    return isinstance(node, gast.AsyncFunctionDef) or unsupported.runs_as_written(node)


def _kind_kept(node: gast.AST) -> str:
    if isinstance(node, gast.AsyncFunctionDef):
        return "an async function"
    return "a generator" if unsupported.is_generator(node) else "a function with try/except*"


def _asked_for(node: gast.AST, qualname: str, names: Sequence[str] | None, static: StaticNames) -> bool:
    """Named with --function or decorated: converting it is what was asked, so failing is an error."""
    if names is not None and (node.name in names or qualname in names):
        return True
    return any(static.is_function_decorator(d) for d in node.decorator_list)


def _convert_one(node: gast.FunctionDef, qualname: str, settings: Settings) -> ConvertedFunction:
    lineno = node.lineno + settings.first_line - 1
    try:
        if isinstance(node, gast.AsyncFunctionDef):
            ctx = _context(settings, node.name, Namespace(set()))
            raise ctx.error(node, f"cannot convert async function {node.name!r}", "async def is not supported", "make it a plain def")
        node.decorator_list = [d for d in node.decorator_list if not settings.is_ours(d)]
        convert_node(node, settings)
        source = generate(node).source
        if source.count("(") > _BRACKETS:  # maybe nested past what Python's tokenizer takes: try it
            compile(source, settings.filename, "exec", dont_inherit=True)
        return ConvertedFunction(node.name, qualname, lineno, source)
    except ConversionError as error:
        return ConvertedFunction(node.name, qualname, lineno, "", error)
    except (RecursionError, MemoryError, SyntaxError) as error:  # see autograph.source.deep
        if isinstance(error, SyntaxError) and "too many" not in error.msg and "too complex" not in error.msg:
            raise
        error = too_deep_error(qualname, settings.filename, node, settings.first_line, error)
        return ConvertedFunction(node.name, qualname, lineno, "", error)


# Python's tokenizer nests at most 200 brackets
_BRACKETS = 190


def _top_functions(module: gast.Module, prefix: str = ""):
    for node in module.body:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            yield prefix + node.name, node
        elif isinstance(node, gast.ClassDef):
            yield from _top_functions(node, prefix + node.name + ".")
