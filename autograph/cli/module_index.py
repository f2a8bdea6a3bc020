"""What converting one statement of a file needs to know about the rest of it, read in one pass.

`autograph convert` streams a file statement by statement (see
`statements`), but a statement is not converted on its own terms only: which
names are modules or our decorators comes from the whole module's imports,
the `--output` module's header goes above the first def and may import the
`do_not_convert` marker, and `--function NAME` reports a name that no function
has. One pass over the statements, each parsed and dropped in turn (which is
also the syntax check, before anything is printed), keeps just that: a few
sets of names and line numbers, not the module's tree.
"""

from __future__ import annotations

import ast
import bisect
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

import gast

from autograph.cli.module_output import (
    added_marker,
    header_line,
    imported_marker,
    our_decorator_names,
    uses_marker_name,
)
from autograph.cli.source_file import SourceError, SourceFile, parse_part
from autograph.cli.statements import Lines, SplitError, candidate_lines, statement_end
from autograph.source.resolution import StaticNames

__all__ = ["ModuleIndex", "Part", "index_module", "nested_functions", "top_classes"]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# statements that bind the module-level names conversion resolves (StaticNames.of_module)
_BINDING = (ast.Import, ast.ImportFrom, ast.Assign)


@dataclass(frozen=True)
class Part:
    """One top-level statement: lines `start`..`end` of the file, and whether it defines functions."""

    start: int
    end: int
    defines: bool

    def text(self, lines: Lines) -> str:
        return lines.between(self.start, self.end)


@dataclass
class ModuleIndex:
    """A file's top-level statements and the module-wide facts their conversion needs."""

    lines: Lines
    starts: array = field(default_factory=lambda: array("q"))
    ends: array = field(default_factory=lambda: array("q"))
    defines: bytearray = field(default_factory=bytearray)
    static: StaticNames = field(default_factory=StaticNames)
    decorator_functions: set[str] = field(default_factory=set)  # names bound to autograph.function
    decorator_modules: set[str] = field(default_factory=set)  # names bound to the autograph module
    first_import: tuple[int, str] | None = None  # (line, spelling) of the first import giving the marker
    marker_name_used: bool = False
    import_line: int | None = None  # where the --output header goes
    names_found: set[str] = field(default_factory=set)  # asked-for names that a function has
    nested: dict[str, tuple[int, str]] = field(default_factory=dict)  # asked-for nested defs
    classes: dict[str, tuple[int, list[str]]] = field(default_factory=dict)  # asked-for classes

    def parts(self) -> Iterator[Part]:
        for start, end, defines in zip(self.starts, self.ends, self.defines):
            yield Part(start, end, bool(defines))

    def marker(self, first_use: int) -> tuple[str, str | None]:
        """How a def at line `first_use` spells the marker, and the import the header needs for it (if any)."""
        if self.first_import is not None and self.first_import[0] < first_use:
            return self.first_import[1], None
        return added_marker(self.marker_name_used)


def index_module(source: SourceFile, names: Sequence[str] | None = None) -> ModuleIndex:
    """Split and read `source` once; SourceError for a syntax error, SplitError if it does not tokenize."""
    lines = Lines(source.text)
    index = ModuleIndex(lines)
    count = 0  # top-level statements so far (the docstring is statement 0)
    last_end = 0
    for start, end, text, tree in _parts(source.path, lines):
        shift = start - 1  # the tree's lines count from the part's first
        body = tree.body
        if not body:
            continue  # comments and blank lines
        index.starts.append(start)
        index.ends.append(end)
        index.defines.append(any(isinstance(node, _DEFS) for node in body))
        _bindings(index, body)
        if "autograph" in text:
            _our_imports(index, tree, shift)
        if "do_not_convert" in text and not index.marker_name_used:
            index.marker_name_used = uses_marker_name(tree)
        if index.import_line is None:
            index.import_line, count, last_end = header_line(body, count, last_end, shift)
        if names:
            _asked(index, body, set(names), shift)
    if index.import_line is None:
        index.import_line = last_end + 1
    return index


def _parts(path: str, lines: Lines) -> Iterator[tuple[int, int, str, ast.Module]]:
    """(first line, last line, text, tree) of each run of top-level statements, in order.

    Runs end where a statement may start (`candidate_lines`); when the text
    before such a line does not parse, it was no start (or the text has a
    syntax error), and the tokenizer says where the statement really ends.
    """
    candidates = candidate_lines(lines)
    total = lines.count
    first = 1  # a line where a statement starts (or blank lines and comments before one)
    at = 0  # the first candidate after `first`
    while first <= total:
        at = bisect.bisect_right(candidates, first, at)
        last = candidates[at] - 1 if at < len(candidates) else total
        text = lines.between(first, last)
        try:
            tree = parse_part(path, text, first)
        except SourceError:
            try:
                last = statement_end(lines, first)
                text = lines.between(first, last)
                tree = parse_part(path, text, first)
            except (SourceError, SplitError):
                _fail_from(path, lines, first)
        yield first, last, text, tree
        first = last + 1


def _fail_from(path: str, lines: Lines, first: int) -> NoReturn:
    """Raise the syntax error of the text from line `first` (a statement's start) on, as parsing the
    whole file does: its message and line, which may depend on the lines after the statement
    ("expected an indented block ... on line N"). Parsing stops at the error."""
    parse_part(path, "\n" * (first - 1) + lines.text[lines.offset(first) :])
    raise SplitError("the statements parse together, not one by one")  # parse the file whole


def _bindings(index: ModuleIndex, body: list[ast.stmt]) -> None:
    """Add what `body` binds to `index.static`, as StaticNames.of_module reads a whole module."""
    binding = [node for node in body if isinstance(node, _BINDING)]
    if binding:
        part = StaticNames.of_module(gast.ast_to_gast(ast.Module(body=binding, type_ignores=[])))
        index.static.modules.update(part.modules)
        index.static.imported.update(part.imported)
        index.static.assigned |= part.assigned
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            index.static.assigned.add(node.name)


def _our_imports(index: ModuleIndex, tree: ast.Module, shift: int) -> None:
    functions, modules = our_decorator_names(tree)
    index.decorator_functions |= functions
    index.decorator_modules |= modules
    if index.first_import is None:
        for node in tree.body:
            spelled = imported_marker(node)
            if spelled is not None:
                index.first_import = (node.lineno + shift, spelled)
                break


def _asked(index: ModuleIndex, body: list[ast.stmt], names: set[str], shift: int) -> None:
    """For `--function`: which asked-for names a converted function has, is nested or is a class."""
    for qualname, node in _top_functions(body, ""):
        index.names_found |= {node.name, qualname} & names
    module = ast.Module(body=body, type_ignores=[])
    for name, (line, outer) in nested_functions(module).items():
        if name in names:
            index.nested.setdefault(name, (line + shift, outer))
    for name, (line, methods) in top_classes(module).items():
        if name in names:
            index.classes[name] = (line + shift, methods)


def nested_functions(tree: ast.Module) -> dict[str, tuple[int, str]]:
    """'outer.inner' (and 'outer.<locals>.inner') -> (line, the top function or method 'outer')."""
    out: dict[str, tuple[int, str]] = {}

    def inside(node: ast.AST, top: str, path: str) -> None:
        for child in ast.walk(node):
            if child is not node and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for shown in (f"{path}.{child.name}", f"{path}.<locals>.{child.name}"):
                    out.setdefault(shown, (child.lineno, top))

    def top_level(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside(node, prefix + node.name, prefix + node.name)
            elif isinstance(node, ast.ClassDef):
                top_level(node.body, f"{prefix}{node.name}.")

    top_level(getattr(tree, "body", []), "")
    return out


def top_classes(tree: ast.Module) -> dict[str, tuple[int, list[str]]]:
    """Qualified class name ('Model', 'Outer.Inner') -> (line, the names of its methods)."""
    out: dict[str, tuple[int, list[str]]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                methods = [n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                out[prefix + node.name] = (node.lineno, methods)
                visit(node.body, f"{prefix}{node.name}.")

    visit(getattr(tree, "body", []), "")
    return out


def _top_functions(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.AST]]:
    """The functions `convert_source` converts: top-level defs and methods, by qualname."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _top_functions(node.body, prefix + node.name + ".")
