"""`autograph convert`: static conversion of files, never importing or running them.

For each file: read and decode the bytes (PEP 263), parse them (a syntax
error is reported as `file:line: syntax error`), hand the text to the
converter (`autograph.pipeline.convert_source`), then print the converted
functions, a unified diff, or write an importable module (`module_output`).
Printing and --output go one top-level statement at a time (`convert_stream`),
so memory stays bounded by the largest function; --diff and --stats hold the
whole file's tree.
A function that cannot be converted is reported as `file:line: message` and
makes the exit status 1; the other functions are still converted. A generator
or coroutine that only `--all` picked is kept as written, with a note: converted
code calls such functions as they are, so the module is complete (status 0).
"""

from __future__ import annotations

import difflib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO

from autograph.cli.convert_stream import stream_file
from autograph.cli.module_index import ModuleIndex, index_module, nested_functions, top_classes
from autograph.cli.module_output import build_module
from autograph.cli.progress import Progress
from autograph.cli.reports import (
    FileFailure,
    Streams,
    failure_message,
    kept_message,
    nothing_to_convert,
    report_missing,
    say,
    write,
)
from autograph.cli.source_file import SourceError, SourceFile, parse_source, read_source
from autograph.cli.statements import SplitError
from autograph.source.deep import run_deep
from runtime.ir.errors import AutographError

__all__ = ["ConvertOptions", "failure_message", "run_convert"]

ConvertSource = Callable[..., list[Any]]


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
    streams = Streams(stdin, stdout, stderr, Progress(stderr, len(options.files)))
    failed = False
    converted_total = 0
    failures = 0
    started = time.perf_counter()
    for index, path in enumerate(options.files, start=1):
        streams.progress.step(index, path)
        try:
            source = read_source(path, stdin)
            index = _prepare(source, options)
        except SourceError as error:
            say(streams, stderr, str(error))
            failed = True
            continue
        convert_source = convert_source or load_converter()
        try:
            if index is None:
                outcome = _convert_file(source, options, convert_source, streams)
            else:
                target = None if options.output is None else _output_path(options.output, source.path, len(options.files))
                outcome = stream_file(source, index, options, convert_source, streams, target)
        except MemoryError:
            say(streams, stderr, _out_of_memory(source))
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


# the largest file --diff and --stats convert: they hold the whole file's tree, about 200 MB
# of memory per MB of source (a module of small functions), so a larger file is refused
# before it exhausts memory
MAX_SOURCE_BYTES = 32 * 1024 * 1024
# the largest file printed or written statement by statement: memory is bounded by the largest
# function plus a few bytes per line, but at ~10 s per MB a larger file takes hours
MAX_STREAMED_BYTES = 256 * 1024 * 1024


def _prepare(source: SourceFile, options: ConvertOptions) -> ModuleIndex | None:
    """The size and syntax checks, and the index that streams the file (None: the whole-file path)."""
    streamed = not (options.diff or options.stats)
    _check_size(source, MAX_STREAMED_BYTES if streamed else MAX_SOURCE_BYTES, streamed)
    if streamed:
        try:
            return index_module(source, options.functions or None)
        except SplitError:
            pass  # Python's tokenize refused it: the parser gives the message (or takes it whole)
    parse_source(source)
    return None


def _check_size(source: SourceFile, limit: int, streamed: bool) -> None:
    size = len(source.text)
    if size > limit:
        if streamed:
            why, fix = "", "convert the functions you need with --function NAME"
        else:
            why = " with --diff or --stats (they hold the whole file's tree, about 200 MB per MB)"
            fix = "leave out --diff and --stats (printing and --output convert one function at a time)"
        raise SourceError(
            f"{source.path}:1: the file is {size / 2**20:.1f} MiB; autograph convert takes files of up to "
            f"{limit // 2**20} MiB{why}. Split the module, or {fix}"
        )


def _out_of_memory(source: SourceFile) -> str:
    return (
        f"{source.path}:1: out of memory converting this file ({len(source.text) / 2**20:.1f} MiB). Split "
        f"the module, or convert the functions you need with --function NAME"
    )


def _functions(count: int) -> str:
    return f"{count} function" if count == 1 else f"{count} functions"


@dataclass
class _Outcome:
    converted: int
    failed: bool
    failures: int = 0


def _convert_file(
    source: SourceFile, options: ConvertOptions, convert_source: ConvertSource, streams: Streams,
) -> _Outcome:
    names = options.functions or None
    try:
        results = convert_source(source.text, source.path, names, options.all_functions)
    except AutographError as error:  # the file as a whole cannot be converted
        say(streams, streams.stderr, failure_message(source.path, FileFailure(error)))
        return _Outcome(0, True, 1)
    tree = parse_source(source)
    found = {r.name for r in results} | {getattr(r, "qualname", r.name) for r in results}
    failed = report_missing(streams, source.path, names, found, lambda: (nested_functions(tree), top_classes(tree)))
    for result in results:
        if result.kept:
            say(streams, streams.stderr, kept_message(source.path, result))
        elif result.error is not None:
            report_to = streams.stdout if options.check else streams.stderr
            say(streams, report_to, failure_message(source.path, result))
            failed = True
    good = [r for r in results if r.error is None and not r.kept]
    results = [r for r in results if not r.kept]
    if not results and not names:
        say(streams, streams.stderr, nothing_to_convert(source.path, options.all_functions))
    if options.stats:
        _print_stats(source, good, convert_source, streams)
    if not options.check:
        _emit(source, tree, good, options, streams)
    return _Outcome(len(good), failed, len(results) - len(good))


def _print_stats(
    source: SourceFile, results: list[Any], convert_source: ConvertSource, streams: Streams
) -> None:
    """Time each function's conversion on its own (parsing the file included)."""
    for result in results:
        started = time.perf_counter()
        convert_source(source.text, source.path, [result.qualname], False)
        elapsed = (time.perf_counter() - started) * 1000
        say(
            streams, streams.stderr,
            f"{elapsed:9.2f} ms  {source.path}:{result.lineno}  {result.qualname}",
        )


def _emit(
    source: SourceFile, tree: Any, results: list[Any], options: ConvertOptions,
    streams: Streams,
) -> None:
    if options.output is None and not options.diff:
        _print_code(source, results, options, streams)
        return
    module = build_module(tree, source.text, results) if results else source.text
    if options.diff:
        _print_diff(source, module, options, streams)
    if options.output is not None:  # with --diff
        target = _output_path(options.output, source.path, len(options.files))
        with open(target, "w", encoding=_writable(source.encoding), newline="") as handle:
            handle.write(module)
        say(streams, streams.stderr, f"wrote {target}")


def _print_code(
    source: SourceFile, results: list[Any], options: ConvertOptions, streams: Streams
) -> None:
    several = len(options.files) > 1 or len(results) > 1
    chunks = []
    for result in results:
        header = f"# {source.path}:{result.lineno}: {result.qualname}\n" if several else ""
        chunks.append(header + result.code.rstrip("\n") + "\n")
    if chunks:
        write(streams, "\n\n".join(chunks), "python", options.color)


def _print_diff(
    source: SourceFile, module: str, options: ConvertOptions, streams: Streams
) -> None:
    diff = difflib.unified_diff(
        source.text.splitlines(keepends=True), module.splitlines(keepends=True),
        fromfile=source.path, tofile=f"{source.path} (converted)",
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in diff)
    if text:
        write(streams, text, "diff", options.color)


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



