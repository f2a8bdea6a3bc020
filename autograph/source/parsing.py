"""Parsing live functions: a function object back to the gast tree of its source.

The source comes from `inspect` (files, notebooks and `exec` code registered in
linecache). The tree keeps the user's line numbers relative to `first_line`,
so every generated line can be mapped back to the user's file.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import types
from collections.abc import Callable
from dataclasses import dataclass

import gast

from autograph.source.deep import in_deep_thread
from autograph.source.diagnostics import conversion_error, no_source_error, source_changed_error
from autograph.source.nesting import resource_reason
from autograph.source.spelling import mark_spellings
from autograph.source.translation import to_gast
from runtime.ir.errors import ConversionError

__all__ = ["ParsedFunction", "block_end", "parse_function", "parse_source", "strip_decorators"]


@dataclass
class ParsedFunction:
    """The gast node of one function (a FunctionDef or a Lambda) and where it lives."""

    node: gast.FunctionDef | gast.Lambda
    filename: str
    first_line: int  # the file line of the parsed text's line 1
    indent: int  # columns removed from every line by dedenting
    name: str

    def user_line(self, lineno: int) -> int:
        return lineno + self.first_line - 1


def _dedent(lines: list[str]) -> tuple[str, int, int]:
    """The text of an indented block that parses on its own: (text, columns removed, lines added).

    Usually the first line's indentation is removed from every line that has
    it; a line that lacks it (a blank line, or text inside brackets) loses its
    leading blanks but keeps its line break, so the tree's line numbers are the
    file's. Text inside a string is not the parser's to re-indent: when a
    string literal may span lines (triple quotes, a backslash at a line's end),
    the lines stay exactly as written under one added line, `if 1:`, so a
    method's multi-line string keeps its continuation lines' indentation.
    """
    first = lines[0]
    indent = len(first) - len(first.lstrip())
    text = "".join(lines)
    if not indent:  # a module-level def: every line as it is
        return text, 0, 0
    if '"""' in text or "'''" in text or "\\\n" in text:
        return "if 1:\n" + text, 0, 1
    prefix = first[:indent]
    out = [line[indent:] if line.startswith(prefix) else line.lstrip(" \t\f") for line in lines]
    return "".join(out), indent, 0


def _def_node(module: ast.Module | gast.Module, added: int) -> ast.AST | None:
    """The def a parsed block holds: inside the `if 1:` that `_dedent` may have added."""
    body = module.body
    if added:
        body = body[0].body if body and isinstance(body[0], (ast.If, gast.If)) else []
    return body[0] if body else None


def parse_source(text: str, filename: str, first_line: int = 1) -> gast.Module:
    """gast.parse, with a SyntaxError turned into a ConversionError naming the file.

    `text` may be a part of the file that starts at line `first_line`: the
    too-deep error names that line of the file.

    Out of recursion depth (or the parser's memory) on a deep stack already
    (autograph.source.deep) it is a ConversionError too; elsewhere the caller
    retries on one.
    """
    try:
        module = to_gast(_parse_ast(text, filename, first_line))
    except (RecursionError, MemoryError) as error:
        if isinstance(error, RecursionError) and not in_deep_thread():
            raise
        raise conversion_error(
            f"cannot parse the source of {filename}: it is nested too deeply",
            filename,
            first_line,
            resource_reason(error),
            "split its most deeply nested expression or statement (assign parts of it to variables)",
        ) from None
    mark_spellings(module, text)
    return module


def _parse_ast(text: str, filename: str, first_line: int = 1) -> ast.Module:
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise conversion_error(
            f"cannot parse the source of {filename}: {exc.msg}",
            filename,
            (exc.lineno or 1) + first_line - 1,
            "the converter needs the function's source text",
            "make the file valid Python",
            col=(exc.offset or 1) - 1,
        ) from None


def _code_of(func: Callable) -> types.CodeType:
    code = getattr(func, "__code__", None)
    if not isinstance(code, types.CodeType):
        raise no_source_error(func)
    return code


def parse_function(func: Callable) -> ParsedFunction:
    """The gast tree of `func` (a def or a lambda); ConversionError when there is no source."""
    code = _code_of(func)
    if code.co_name == "<lambda>":
        return _parse_lambda(func, code)
    guessed = _indented_block(func, code)
    if guessed is not None:
        start, text, indent, added, tree = guessed
        module = to_gast(tree)
        mark_spellings(module, text)
    else:
        found = _def_lines(func, code)
        if found is None:
            try:
                found = inspect.getsourcelines(code)
            except (OSError, TypeError):
                raise _missing_source(func, code) from None
        lines, start = found
        text, indent, added = _dedent(lines)
        module = parse_source(text, code.co_filename)
    node = _def_node(module, added)
    if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        raise no_source_error(func)
    if node.name != code.co_name or start != code.co_firstlineno:
        where = f"line {start} now holds `def {node.name}`" if start == code.co_firstlineno else (
            f"the nearest def is now `def {node.name}` at line {start}"
        )
        raise source_changed_error(func, where)
    start -= added  # the file line of the parsed text's line 1
    if isinstance(node, gast.AsyncFunctionDef):
        raise conversion_error(
            f"cannot convert async function {code.co_name!r}",
            code.co_filename,
            start + node.lineno - 1,
            "async def is not supported by autograph",
            "make it a plain def, or mark it with ag.do_not_convert",
            text=linecache.getline(code.co_filename, start + node.lineno - 1),
        )
    return ParsedFunction(node, code.co_filename, max(start, 1), indent, code.co_name)


def _missing_source(func: Callable, code: types.CodeType) -> ConversionError:
    """No def found: the file is shorter than where the code says the def starts (it was
    edited since the import), or there is no source at all."""
    lines = linecache.getlines(code.co_filename, getattr(func, "__globals__", None))
    if 0 < len(lines) < code.co_firstlineno:
        return source_changed_error(func, f"the file now has only {len(lines)} lines")
    return no_source_error(func)


def _indented_block(func: Callable, code: types.CodeType) -> tuple[int, str, int, int, ast.Module] | None:
    """The def's source found by indentation alone, dedented and parsed; None when unsure.

    A guess that parses is the def's exact source (see `block_end`); one that
    does not is left to `_def_lines`, which parses the whole file.
    """
    filename = code.co_filename
    if not (filename.endswith(".py") or filename in linecache.cache):
        return None
    lines = linecache.getlines(filename, getattr(func, "__globals__", None))
    start = code.co_firstlineno
    end = block_end(lines, start)
    if end is None:
        return None
    text, indent, added = _dedent(lines[start - 1 : end])
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError):
        return None
    return start, text, indent, added, tree


def _is_code(line: str) -> bool:
    stripped = line.lstrip()
    return bool(stripped) and not stripped.startswith("#")


def block_end(lines: list[str], start: int) -> int | None:
    """The last line of the def whose decorators or `def` line is `start` (1-based), by indentation.

    The block ends before the first code line indented no deeper than the
    def; trailing blank and comment lines are not part of it. Wrong only when
    a string, bracket or backslash carries the def onto a line that shallow,
    and then the lines up to the end found do not parse. None when the
    decorators and `def` line are not one line each at the same depth.
    """
    if not 0 < start <= len(lines):
        return None
    depth = len(lines[start - 1]) - len(lines[start - 1].lstrip())
    number = start
    while not lines[number - 1].lstrip().startswith(("def ", "async def ")):
        if not lines[number - 1].lstrip().startswith("@"):
            return None
        number += 1
        while number <= len(lines) and not _is_code(lines[number - 1]):
            number += 1
        if number > len(lines) or len(lines[number - 1]) - len(lines[number - 1].lstrip()) != depth:
            return None
    end = number
    for body_line in range(number + 1, len(lines) + 1):
        line = lines[body_line - 1]
        stripped = line.lstrip()
        if stripped and stripped[0] != "#":  # a code line (as `_is_code`, without its call and second lstrip)
            if len(line) - len(stripped) <= depth:
                break
            end = body_line
    return end


# filename -> (the linecache lines it was computed from, {first line of a def: its last line})
_SPANS: dict[str, tuple[list[str], dict[int, int]]] = {}
_SPANS_KEPT = 64


def _def_lines(func: Callable, code: types.CodeType) -> tuple[list[str], int] | None:
    """What `inspect.getsourcelines(code)` gives for a def, without tokenizing the file.

    The file is parsed once (per linecache version) into the line spans of its
    defs; None (the caller asks inspect) when the file is unavailable, does
    not parse, or has no def starting at the code's first line.
    """
    filename = code.co_filename
    if not (filename.endswith(".py") or filename in linecache.cache):
        return None
    lines = linecache.getlines(filename, getattr(func, "__globals__", None))
    if not lines:
        return None
    known = _SPANS.get(filename)
    if known is None or known[0] is not lines:
        try:
            tree = ast.parse("".join(lines), filename)
        except (SyntaxError, ValueError):
            return None
        if len(_SPANS) >= _SPANS_KEPT:
            _SPANS.clear()
        known = _SPANS[filename] = (lines, _def_spans(tree))
    start = code.co_firstlineno
    end = known[1].get(start)
    if end is None:
        return None
    return lines[start - 1 : end], start


def _def_spans(tree: ast.Module) -> dict[int, int]:
    """{first line (decorators included): last line} of every def; defs are statements,
    so only statement blocks are walked, never expressions."""
    spans = {}
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans[first] = node.end_lineno or node.lineno
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if type(block) is list:
                stack.extend(block)
    return spans


def _parse_lambda(func: Callable, code: types.CodeType) -> ParsedFunction:
    """Find the lambda in its file: the one on its line whose arguments and columns match.

    The file is searched as an `ast` tree; only the lambda found becomes gast.
    """
    filename = code.co_filename
    lines = linecache.getlines(filename, getattr(func, "__globals__", {}))
    if not lines:
        raise no_source_error(func)
    module = _parse_ast("".join(lines), filename)
    line = code.co_firstlineno
    arg_names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    candidates = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.Lambda) and node.lineno == line and _lambda_args(node) == arg_names
    ]
    if len(candidates) > 1:
        candidates = _match_columns(candidates, code) or candidates
    if not candidates:
        raise no_source_error(func)
    if len(candidates) > 1:
        raise conversion_error(
            "cannot tell which lambda to convert: several lambdas with the same arguments share this line",
            filename,
            line,
            "a lambda is found by its line and arguments",
            "put each lambda on its own line, or use a def",
            text=lines[line - 1],
            col=candidates[1].col_offset,
        )
    return ParsedFunction(to_gast(candidates[0]), filename, 1, 0, "<lambda>")


def _lambda_args(node: ast.Lambda) -> list[str]:
    args = node.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]


def _match_columns(candidates: list[ast.Lambda], code: types.CodeType) -> list[ast.Lambda]:
    """Keep the lambdas whose body spans the columns of the code's instructions.

    Instructions with an empty span (the lambda's entry and implicit exit, at
    column 0 on its line) belong to no expression and are left out.
    """
    cols = {
        (start, col)
        for start, _end, col, end_col in code.co_positions()
        if start is not None and col is not None and end_col is not None and end_col > col
    }
    if not cols:
        return []

    def spans(node: ast.Lambda) -> bool:
        body = node.body
        lo = (body.lineno, body.col_offset)
        hi = (body.end_lineno, body.end_col_offset)
        return all(lo <= pos <= hi for pos in cols)

    return [node for node in candidates if spans(node)]


def strip_decorators(node: gast.FunctionDef, is_ours: Callable[[gast.expr], bool]) -> None:
    """Drop this package's decorators (ag.function, ag.do_not_convert, aliases); keep others."""
    node.decorator_list = [d for d in node.decorator_list if not is_ours(d)]
