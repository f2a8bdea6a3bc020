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
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from autograph.source.literals import continued_lines

__all__ = [
    "NAMESPACE_IMPORT", "added_marker", "source_lines", "apply_edits", "build_module", "chosen_defs", "def_edits",
    "first_unmarked", "header_line", "imported_marker", "module_header", "our_decorator_names",
    "start_of", "uses_marker_name",
]

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
    chosen = chosen_defs(tree, converted)
    lines = source_lines(text)
    first_use = first_unmarked(chosen, functions, modules)
    marker, marker_import = _marker(tree, first_use)
    edits = def_edits(chosen, lines, functions, modules, marker)
    if chosen:
        line = _import_line(tree)
        edits.append(_Edit((line, 0), (line, 0), module_header(first_use is not None, marker_import)))
    return apply_edits(lines, edits)


def source_lines(text: str) -> list[str]:
    """The lines of `text` as the parser counts them: split at line breaks only (`splitlines`
    also splits at form feeds and other separators, which moved every edit after one)."""
    return io.StringIO(text).readlines()


def chosen_defs(tree: ast.Module, converted: Sequence[Any]) -> list[tuple[ast.AST, Any]]:
    """(def, its conversion) for each def of `tree` to replace: converted cleanly, not inside another."""
    defs = _function_defs(tree)
    pairs = []
    for function in converted:
        node = _def_of(function, defs)
        if node is not None:
            pairs.append((node, function))
    return _outermost(pairs)


def first_unmarked(chosen: list[tuple[ast.AST, Any]], functions: set[str], modules: set[str]) -> int | None:
    """The first line of the first chosen def without our decorator: the marker decorates it."""
    unmarked = [node for node, _ in chosen if not any(_is_ours(d, functions, modules) for d in node.decorator_list)]
    return min([_start(node)[0] for node in unmarked], default=None)


def def_edits(
    chosen: list[tuple[ast.AST, Any]], lines: list[str], functions: set[str], modules: set[str],
    marker: str, first_line: int = 1,
) -> list[_Edit]:
    """The edits that swap in each chosen def; `lines` are the text's from line `first_line`."""
    edits: list[_Edit] = []
    for node, function in chosen:
        ours = [d for d in node.decorator_list if _is_ours(d, functions, modules)]
        for decorator in ours:
            edits.append(_Edit(_start(decorator), _end(decorator), _without_autograph(decorator)))
        line = lines[node.lineno - first_line]
        indent = line.encode("utf-8")[: node.col_offset].decode("utf-8")
        body = _reindent(_converted_def(function.code), indent)
        if not ours:
            body = f"@{marker}\n{indent}{body}"
        edits.append(_Edit((node.lineno, node.col_offset), _end(node), body))
    return edits


def module_header(needs_marker: bool, marker_import: str | None) -> str:
    """The lines inserted where the module's imports start: `ag__`, and the marker when it is not imported."""
    header = NAMESPACE_IMPORT + "\n"
    if needs_marker and marker_import:
        header = marker_import + "\n" + header
    return header


def _marker(tree: ast.Module, first_use: int | None = None) -> tuple[str, str | None]:
    """How to spell `autograph.do_not_convert` here, and the import it needs if any.

    The module's own `import autograph as ag` serves only if it stands before
    the first def the marker decorates (`first_use`, a line): a helper defined
    above the import would run `@ag.do_not_convert` before `ag` exists.
    """
    for node in tree.body:
        if first_use is not None and node.lineno >= first_use:
            break
        spelled = imported_marker(node)
        if spelled is not None:
            return spelled, None
    return added_marker(uses_marker_name(tree))


def imported_marker(node: ast.stmt) -> str | None:
    """How the names an import statement binds spell `autograph.do_not_convert`, if they do."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == _PACKAGE:
                return f"{alias.asname or _PACKAGE}.{_MARKER}"
    elif isinstance(node, ast.ImportFrom) and node.module == _PACKAGE and node.level == 0:
        for alias in node.names:
            if alias.name == _MARKER:
                return alias.asname or _MARKER
    return None


def uses_marker_name(tree: ast.AST) -> bool:
    """Whether `do_not_convert` is a name the code uses (then the added import takes another)."""
    return any(isinstance(n, ast.Name) and n.id == _MARKER for n in ast.walk(tree))


def added_marker(name_used: bool) -> tuple[str, str]:
    """The marker's spelling and import when the module has no `autograph` import to use."""
    name = "ag__" + _MARKER if name_used else _MARKER
    suffix = "" if name == _MARKER else f" as {name}"
    return name, f"from {_PACKAGE} import {_MARKER}{suffix}"


def _def_of(function: Any, defs: dict[str, list[ast.AST]]) -> ast.AST | None:
    """`function`'s def in this module: by qualname (the one at its line, where a module defines
    a name twice), else by line."""
    qualname = getattr(function, "qualname", None) or function.name
    nodes = defs.get(qualname)
    if nodes:
        return next((node for node in nodes if _at(node, function.lineno)), nodes[0])
    return next((node for nodes in defs.values() for node in nodes if _at(node, function.lineno)), None)


def _at(node: ast.AST, line: int) -> bool:
    """Whether a def starts at `line` (its `def` line or its first decorator's)."""
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return line in (node.lineno, first)


def _function_defs(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Every def by qualname (`C.m`, `outer.<locals>.inner`, as Python names them), in order."""
    found: dict[str, list[ast.AST]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(prefix + node.name, []).append(node)
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
    if code.startswith(("def ", "async def ")):  # no decorators: nothing to find (or parse)
        return code.strip("\n")
    tree = ast.parse(code)
    lines = code.split("\n")  # as the parser counts lines
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
    line, _, after = header_line(tree.body, 0, 0)
    return after + 1 if line is None else line


def header_line(nodes: list[ast.stmt], count: int, after: int, shift: int = 0) -> tuple[int | None, int, int]:
    """Where the header goes among `nodes`, the module's statements from number `count` on, whose
    preamble so far ends at line `after` (lines are the nodes' plus `shift`): (the line, or None
    when all of them are preamble; the count and end of the preamble after them).

    The preamble is the docstring (statement 0), `from __future__` imports, and a statement on a
    line one of them ends on (`from __future__ import x; import y`): the header goes after it.
    """
    for node in nodes:
        start = _start(node)[0] + shift
        if not _is_preamble(node, count) and start > after:
            return start, count, after
        count += 1
        after = node.end_lineno + shift
    return None, count, after


def _is_preamble(node: ast.stmt, index: int) -> bool:
    """The module docstring (statement `index` 0) or a `from __future__` import."""
    is_doc = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    return is_doc or (isinstance(node, ast.ImportFrom) and node.module == "__future__")


def start_of(node: ast.AST) -> tuple[int, int]:
    """Where a statement's text starts: at its first decorator, if it has one."""
    return _start(node)


def _start(node: ast.AST) -> tuple[int, int]:
    decorators = getattr(node, "decorator_list", [])
    if decorators and not isinstance(node, ast.expr):
        return decorators[0].lineno, decorators[0].col_offset
    return node.lineno, node.col_offset


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def apply_edits(lines: list[str], edits: list[_Edit], first_line: int = 1) -> str:
    """Apply non-overlapping edits in one pass over the text, first to last (linear in its size).

    `lines` are the text's from line `first_line` on. Edits at one point apply
    in the order of their ends: an insertion at a point comes before a
    replacement starting there.
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
        index = line - first_line
        return offsets[index] + len(lines[index].encode("utf-8")[:col].decode("utf-8"))

    pieces = []
    done = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        start, end = offset(*edit.start), offset(*edit.end)
        pieces += [text[done:start], edit.text]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)
