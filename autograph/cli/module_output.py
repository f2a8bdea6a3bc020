"""The importable module `autograph convert --output` writes.

The output is the original module, text for text, except that:

- each converted function's `def` (signature and body) is replaced by the
  converted code, indented where the original stood;
- the module imports `ag__` (`from autograph.converted_call import AG as ag__`),
  the one name generated code uses, right after its docstring and
  `from __future__` imports;
- nothing is converted twice: `@ag.function` decorators (however imported)
  gain `autograph=False`, so they still trace but do not convert again, and
  functions converted without our decorator (`--all`, `--function`) are
  marked `@ag.do_not_convert` (through the module's own `autograph` import
  when it has one, else an added `from autograph import do_not_convert`), so
  `converted_call` calls them as they are.

Imports, classes, constants, comments and every other function stay as they
were, so importing the output gives the same module as importing the
original, with conversion already done.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from autograph.source.literals import continued_lines

__all__ = ["build_module", "NAMESPACE_IMPORT", "our_decorator_names"]

NAMESPACE_IMPORT = "from autograph.converted_call import AG as ag__"
_PACKAGE = "autograph"
_DECORATOR = "function"
_MARKER = "do_not_convert"


@dataclass(frozen=True)
class _Edit:
    """Replace source text between two (line, col) points (1-based lines)."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


def our_decorator_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(names bound to `autograph.function`, names bound to the `autograph` module)."""
    functions: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == _PACKAGE:
                    modules.add(alias.asname or _PACKAGE)
        elif isinstance(node, ast.ImportFrom) and node.module == _PACKAGE and node.level == 0:
            for alias in node.names:
                if alias.name == _DECORATOR:
                    functions.add(alias.asname or _DECORATOR)
    return functions, modules


def build_module(tree: ast.Module, text: str, converted: Sequence[Any]) -> str:
    """The original module `text` with each of `converted` (ConvertedFunction) swapped in."""
    functions, modules = our_decorator_names(tree)
    defs = _function_defs(tree)
    chosen = _outermost([(defs[_key(f, defs)], f) for f in converted if _key(f, defs)])
    lines = text.splitlines(keepends=True)
    unmarked = [node for node, _ in chosen if not any(_is_ours(d, functions, modules) for d in node.decorator_list)]
    marker, marker_import = _marker(tree, min([_start(node)[0] for node in unmarked], default=None))
    edits: list[_Edit] = []
    needs_marker = False
    for node, function in chosen:
        ours = [d for d in node.decorator_list if _is_ours(d, functions, modules)]
        for decorator in ours:
            edits.append(_Edit(_start(decorator), _end(decorator), _without_autograph(decorator)))
        indent = lines[node.lineno - 1].encode("utf-8")[: node.col_offset].decode("utf-8")
        body = _reindent(_converted_def(function.code), indent)
        if not ours:
            body = f"@{marker}\n{indent}{body}"
            needs_marker = True
        edits.append(_Edit((node.lineno, node.col_offset), _end(node), body))
    if chosen:
        header = NAMESPACE_IMPORT + "\n"
        if needs_marker and marker_import:
            header = marker_import + "\n" + header
        line = _import_line(tree)
        edits.append(_Edit((line, 0), (line, 0), header))
    return _apply(lines, edits)


def _marker(tree: ast.Module, first_use: int | None = None) -> tuple[str, str | None]:
    """How to spell `autograph.do_not_convert` here, and the import it needs if any.

    The module's own `import autograph as ag` serves only if it stands before
    the first def the marker decorates (`first_use`, a line): a helper defined
    above the import would run `@ag.do_not_convert` before `ag` exists.
    """
    for node in tree.body:
        if first_use is not None and node.lineno >= first_use:
            break
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == _PACKAGE:
                    return f"{alias.asname or _PACKAGE}.{_MARKER}", None
        elif isinstance(node, ast.ImportFrom) and node.module == _PACKAGE and node.level == 0:
            for alias in node.names:
                if alias.name == _MARKER:
                    return alias.asname or _MARKER, None
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    name = _MARKER if _MARKER not in used else "ag__" + _MARKER
    suffix = "" if name == _MARKER else f" as {name}"
    return name, f"from {_PACKAGE} import {_MARKER}{suffix}"


def _key(function: Any, defs: dict[str, ast.AST]) -> str | None:
    """The qualname of `function`'s def in this module (by qualname, else by line)."""
    qualname = getattr(function, "qualname", None) or function.name
    if qualname in defs:
        return qualname
    for name, node in defs.items():
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        if function.lineno in (node.lineno, first):
            return name
    return None


def _function_defs(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every def by qualname (`C.m`, `outer.<locals>.inner`, as Python names them)."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(prefix + node.name, node)
                visit(node.body, f"{prefix}{node.name}.<locals>.")
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit([n for n in getattr(node, field, []) if isinstance(n, ast.AST)], prefix)

    visit(tree.body, "")
    return found


def _outermost(pairs: list[tuple[ast.AST, Any]]) -> list[tuple[ast.AST, Any]]:
    """Drop functions nested inside another converted one: its code holds them.

    A def is inside another when that one starts (at its first decorator)
    before the def's line and ends at or after it. Spans sorted by start, a
    running maximum of their ends answers that for each def with one binary
    search: linear in the number of functions (after the sort), where comparing
    every pair took minutes for a file of 45,000 functions.
    """
    spans = sorted((_start(node)[0], node.end_lineno, index) for index, (node, _) in enumerate(pairs))
    starts = [start for start, _, _ in spans]
    reach = []  # reach[i]: the furthest end among spans[:i + 1]
    furthest = 0
    for _, end, _ in spans:
        furthest = max(furthest, end)
        reach.append(furthest)
    position = {index: rank for rank, (_, _, index) in enumerate(spans)}
    kept = []
    for index, (node, function) in enumerate(pairs):
        before = bisect.bisect_left(starts, node.lineno)  # spans[:before] start before the def line
        rank = position[index]
        if rank < before:  # its own decorators start before its def line: leave it out
            ends = [spans[other][1] for other in range(rank + 1, before)]
            if rank > 0:
                ends.append(reach[rank - 1])
        else:
            ends = [reach[before - 1]] if before else []
        inside = max(ends, default=0) >= node.lineno
        if not inside and getattr(function, "error", None) is None and function.code:
            kept.append((node, function))
    return kept


def _is_ours(decorator: ast.expr, functions: set[str], modules: set[str]) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Name):
        return target.id in functions
    return (
        isinstance(target, ast.Attribute)
        and target.attr == _DECORATOR
        and isinstance(target.value, ast.Name)
        and target.value.id in modules
    )


def _without_autograph(decorator: ast.expr) -> str:
    """`ag.function` -> `ag.function(autograph=False)`, keeping other arguments."""
    if isinstance(decorator, ast.Call):
        call = ast.Call(
            func=decorator.func,
            args=decorator.args,
            keywords=[k for k in decorator.keywords if k.arg != "autograph"],
        )
    else:
        call = ast.Call(func=decorator, args=[], keywords=[])
    call.keywords.append(ast.keyword(arg="autograph", value=ast.Constant(False)))
    return ast.unparse(call)


def _converted_def(code: str) -> str:
    """The converted code from its `def` line on (decorators are the original's)."""
    tree = ast.parse(code)
    lines = code.splitlines()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            kept = lines[: first - 1] + lines[node.lineno - 1 :]
            return "\n".join(kept).strip("\n")
    return code.strip("\n")


def _reindent(code: str, indent: str) -> str:
    """`code` moved right by `indent`, but for lines inside a string literal (a docstring's)."""
    inside = continued_lines(code) if '"""' in code or "'''" in code else frozenset()
    lines = code.split("\n")
    return "\n".join(
        [lines[0]]
        + [line if n in inside else indent + line if line.strip() else "" for n, line in enumerate(lines[1:], 2)]
    )


def _import_line(tree: ast.Module) -> int:
    """The line to insert the `ag__` import at: the first statement after the
    docstring and __future__ imports, so a leading `#!` line and coding
    comment stay on lines 1-2 where Python looks for them."""
    line = 1
    for index, node in enumerate(tree.body):
        is_doc = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (is_doc or is_future):
            return _start(node)[0]
        line = node.end_lineno + 1
    return line


def _start(node: ast.AST) -> tuple[int, int]:
    decorators = getattr(node, "decorator_list", [])
    if decorators and not isinstance(node, ast.expr):
        return decorators[0].lineno, decorators[0].col_offset
    return node.lineno, node.col_offset


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def _apply(lines: list[str], edits: list[_Edit]) -> str:
    """Apply non-overlapping edits in one pass over the text, first to last (linear in its size).

    Edits at one point apply in the order of their ends: an insertion at a
    point comes before a replacement starting there.
    """
    lines = list(lines)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lines.append("")  # an edit may point at the line after the last one
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    text = "".join(lines)

    def offset(line: int, col: int) -> int:
        # ast columns count UTF-8 bytes, not characters
        return offsets[line - 1] + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8"))

    pieces = []
    done = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        start, end = offset(*edit.start), offset(*edit.end)
        pieces += [text[done:start], edit.text]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)
