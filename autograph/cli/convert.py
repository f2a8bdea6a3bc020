"""`autograph convert`: static conversion of files, never importing or running them.

For each file: read and decode the bytes (PEP 263), parse them (a syntax
error is reported as `file:line: syntax error`), hand the text to the
converter (`autograph.pipeline.convert_source`), then print the converted
functions, a unified diff, or write an importable module (`module_output`).
A function that cannot be converted is reported as `file:line: message` and
makes the exit status 1; the other functions are still converted. A generator
or coroutine that only `--all` picked is kept as written, with a note: converted
code calls such functions as they are, so the module is complete (status 0).
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO

from autograph.cli.module_output import build_module
from autograph.cli.progress import Progress
from autograph.cli.source_file import SourceError, SourceFile, parse_source, read_source
from autograph.display import highlight_terminal, use_color
from autograph.source.deep import run_deep
from runtime.ir.errors import AutographError

__all__ = ["ConvertOptions", "run_convert"]

ConvertSource = Callable[..., list[Any]]
_LOCATED = re.compile(r"^\S.*?:\d+")


@dataclass
class ConvertOptions:
    """What `autograph convert` was asked to do (one field per command-line option)."""

    files: list[str]
    functions: list[str] = field(default_factory=list)
    all_functions: bool = False
    output: str | None = None
    diff: bool = False
    check: bool = False
    stats: bool = False
    color: str = "auto"


@dataclass
class _Streams:
    stdin: BinaryIO | None
    stdout: IO[str]
    stderr: IO[str]
    progress: Progress


def load_converter() -> ConvertSource:
    """The converter's entry point, imported only when a file is converted."""
    from autograph.pipeline import convert_source

    return convert_source


def run_convert(
    options: ConvertOptions, stdin: BinaryIO | None, stdout: IO[str], stderr: IO[str]
) -> int:
    """Convert every file of `options`; 0 if all went well, 1 if anything failed."""
    refused = _output_is_input(options)
    if refused is not None:
        stderr.write(refused + "\n")
        return 2
    # on a deep stack: code as deeply nested as Python parses converts (autograph.source.deep)
    return run_deep(lambda: _run_convert(options, stdin, stdout, stderr))


def _output_is_input(options: ConvertOptions) -> str | None:
    """The refusal when `--output` names an input file: writing it would overwrite the source."""
    if options.output is None:
        return None
    for path in options.files:
        if path == "-":
            continue
        target = options.output
        if len(options.files) > 1 or os.path.isdir(target):
            target = os.path.join(target, os.path.basename(path))
        same = os.path.exists(target) and os.path.exists(path) and os.path.samefile(target, path)
        if same or os.path.abspath(target) == os.path.abspath(path):
            return (
                f"autograph convert: --output {options.output} would overwrite the input {path}; "
                f"write the converted module to another file (for example --output converted_{os.path.basename(path)})"
            )
    return None


def _run_convert(options: ConvertOptions, stdin: BinaryIO | None, stdout: IO[str], stderr: IO[str]) -> int:
    convert_source: ConvertSource | None = None
    streams = _Streams(stdin, stdout, stderr, Progress(stderr, len(options.files)))
    failed = False
    converted_total = 0
    failures = 0
    started = time.perf_counter()
    for index, path in enumerate(options.files, start=1):
        streams.progress.step(index, path)
        try:
            source = read_source(path, stdin)
            _check_size(source)
            parse_source(source)  # the syntax check; the tree is made again after conversion, to
            # hold one file's tree at a time, not the CLI's and the converter's together
        except SourceError as error:
            _say(streams, stderr, str(error))
            failed = True
            continue
        convert_source = convert_source or load_converter()
        try:
            outcome = _convert_file(source, options, convert_source, streams)
        except MemoryError:
            _say(streams, stderr, _out_of_memory(source))
            failed = True
            continue
        failed |= outcome.failed
        converted_total += outcome.converted
        failures += outcome.failures
    streams.progress.clear()
    if options.stats:
        elapsed = (time.perf_counter() - started) * 1000
        stderr.write(f"{_functions(converted_total)} converted in {elapsed:.1f} ms\n")
    if options.check:
        total = converted_total + failures
        stderr.write(f"{converted_total} of {_functions(total)} convert cleanly\n")
    return 1 if failed else 0


# the largest file converted: about 100 MB of memory per MB of source (a module of small
# functions, see docs/cli.md), so a larger file is refused before it exhausts memory
MAX_SOURCE_BYTES = 32 * 1024 * 1024


def _check_size(source: SourceFile) -> None:
    size = len(source.text)
    if size > MAX_SOURCE_BYTES:
        raise SourceError(
            f"{source.path}:1: the file is {size / 2**20:.1f} MiB; autograph convert takes files of up to "
            f"{MAX_SOURCE_BYTES // 2**20} MiB (converting needs about 100 MB of memory per MB). Split the "
            f"module, or convert the functions you need with --function NAME"
        )


def _out_of_memory(source: SourceFile) -> str:
    return (
        f"{source.path}:1: out of memory converting this file ({len(source.text) / 2**20:.1f} MiB). Split "
        f"the module, or convert the functions you need with --function NAME"
    )


def _functions(count: int) -> str:
    return f"{count} function" if count == 1 else f"{count} functions"


@dataclass
class _FileFailure:
    """A whole-file failure, reported like a function's."""

    error: Exception
    lineno: int = 1
    qualname: str = "<module>"


@dataclass
class _Outcome:
    converted: int
    failed: bool
    failures: int = 0


def _convert_file(
    source: SourceFile, options: ConvertOptions, convert_source: ConvertSource, streams: _Streams,
) -> _Outcome:
    names = options.functions or None
    try:
        results = convert_source(source.text, source.path, names, options.all_functions)
    except AutographError as error:  # the file as a whole cannot be converted
        _say(streams, streams.stderr, failure_message(source.path, _FileFailure(error)))
        return _Outcome(0, True, 1)
    tree = parse_source(source)
    failed = _report_missing(source, tree, names, results, streams)
    for result in results:
        if result.kept:
            _say(streams, streams.stderr, _kept_message(source.path, result))
        elif result.error is not None:
            report_to = streams.stdout if options.check else streams.stderr
            _say(streams, report_to, failure_message(source.path, result))
            failed = True
    good = [r for r in results if r.error is None and not r.kept]
    results = [r for r in results if not r.kept]
    if not results and not names:
        _say(streams, streams.stderr, _nothing_to_convert(source.path, options.all_functions))
    if options.stats:
        _print_stats(source, good, convert_source, streams)
    if not options.check:
        _emit(source, tree, good, options, streams)
    return _Outcome(len(good), failed, len(results) - len(good))


def failure_message(path: str, result: Any) -> str:
    """`file:line: what rule, how to fix` for a function that failed to convert."""
    message = str(result.error).strip() or type(result.error).__name__
    if _LOCATED.match(message):
        return message
    if message.startswith("cannot convert "):  # the converter's own errors say so already
        return f"{path}:{result.lineno}: {message}"
    return f"{path}:{result.lineno}: cannot convert {result.qualname!r}: {message}"


def _kept_message(path: str, result: Any) -> str:
    """A generator --all met: kept as written, as converted code would call it."""
    return (
        f"{path}:{result.lineno}: kept {result.qualname!r} as written: it is {result.kept}, which "
        f"autograph never converts (converted code calls it as it is)"
    )


def _report_missing(
    source: SourceFile, tree: Any, names: Sequence[str] | None, results: list[Any], streams: _Streams
) -> bool:
    found = {r.name for r in results} | {getattr(r, "qualname", r.name) for r in results}
    missing = [name for name in names or () if name not in found]
    nested = _nested_functions(tree) if missing else {}
    classes = _classes(tree) if missing else {}
    for name in missing:
        if name in classes:
            line, methods = classes[name]
            some = ", ".join(f"{name}.{m}" for m in methods[:3]) or f"{name}.method_name"
            _say(
                streams, streams.stderr,
                f"{source.path}:{line}: {name!r} is a class; --function takes a function or a "
                f"method: pass one of its methods, such as {some}",
            )
            continue
        if name in nested:
            line, outer = nested[name]
            _say(
                streams, streams.stderr,
                f"{source.path}:{line}: {name!r} is defined inside {outer!r}, and a nested function "
                f"is converted with the function that defines it: pass --function {outer}",
            )
            continue
        _say(
            streams, streams.stderr,
            f"{source.path}:1: no function named {name!r}; --function takes a function "
            f"name or a qualified name such as 'Model.call'",
        )
    return bool(missing)


def _nested_functions(tree: Any) -> dict[str, tuple[int, str]]:
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


def _classes(tree: Any) -> dict[str, tuple[int, list[str]]]:
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


def _nothing_to_convert(path: str, all_functions: bool) -> str:
    if all_functions:
        return f"{path}: no function to convert: the file defines none"
    return (
        f"{path}: no function to convert: none is decorated with @ag.function; "
        f"pass --all to convert every function, or --function NAME"
    )


def _print_stats(
    source: SourceFile, results: list[Any], convert_source: ConvertSource, streams: _Streams
) -> None:
    """Time each function's conversion on its own (parsing the file included)."""
    for result in results:
        started = time.perf_counter()
        convert_source(source.text, source.path, [result.qualname], False)
        elapsed = (time.perf_counter() - started) * 1000
        _say(
            streams, streams.stderr,
            f"{elapsed:9.2f} ms  {source.path}:{result.lineno}  {result.qualname}",
        )


def _emit(
    source: SourceFile, tree: Any, results: list[Any], options: ConvertOptions,
    streams: _Streams,
) -> None:
    if options.output is None and not options.diff:
        _print_code(source, results, options, streams)
        return
    module = build_module(tree, source.text, results) if results else source.text
    if options.diff:
        _print_diff(source, module, options, streams)
    if options.output is not None:
        target = _output_path(options.output, source.path, len(options.files))
        with open(target, "w", encoding=_writable(source.encoding), newline="") as handle:
            handle.write(module)
        _say(streams, streams.stderr, f"wrote {target}")


def _print_code(
    source: SourceFile, results: list[Any], options: ConvertOptions, streams: _Streams
) -> None:
    several = len(options.files) > 1 or len(results) > 1
    chunks = []
    for result in results:
        header = f"# {source.path}:{result.lineno}: {result.qualname}\n" if several else ""
        chunks.append(header + result.code.rstrip("\n") + "\n")
    if chunks:
        _write(streams, "\n\n".join(chunks), "python", options.color)


def _print_diff(
    source: SourceFile, module: str, options: ConvertOptions, streams: _Streams
) -> None:
    diff = difflib.unified_diff(
        source.text.splitlines(keepends=True), module.splitlines(keepends=True),
        fromfile=source.path, tofile=f"{source.path} (converted)",
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in diff)
    if text:
        _write(streams, text, "diff", options.color)


def _output_path(output: str, path: str, file_count: int) -> str:
    """`--output` is the file to write, or a directory for several inputs."""
    if file_count > 1 or os.path.isdir(output):
        os.makedirs(output, exist_ok=True)
        name = "stdin.py" if path == "<stdin>" else os.path.basename(path)
        return os.path.join(output, name)
    return output


def _writable(encoding: str) -> str:
    """Write back in the file's own encoding, so its coding cookie stays true."""
    return "utf-8" if encoding == "utf-8-sig" else encoding


def _write(streams: _Streams, text: str, language: str, color: str) -> None:
    streams.progress.clear()
    if use_color(streams.stdout, color):
        text = highlight_terminal(text, language)
    streams.stdout.write(text)
    streams.stdout.flush()


def _say(streams: _Streams, stream: IO[str], message: str) -> None:
    streams.progress.clear()
    stream.write(message.rstrip("\n") + "\n")
    stream.flush()
