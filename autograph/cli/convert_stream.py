"""`autograph convert` one top-level statement at a time: memory bounded by the largest, not the file.

The file is read once (`module_index`: the split into statements, the
syntax check, the module-wide names), then each statement that defines
functions is parsed, converted and printed or written on its own, and its
trees dropped before the next: a file of 40,000 small functions needs about
what one of them does, where holding the module's trees took ~200 MB per MB
of source. What is printed and written is what the whole-file path
(`convert._convert_file`, still used by --diff and --stats) gives.

`--output` is written atomically: into a temporary file beside the target,
renamed over it once complete, so a failure leaves no half-written module.
The statements after the header's place (the first import) go to a second
temporary file first, since whether the header imports `do_not_convert` is
known only at the end.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from autograph.cli.module_index import ModuleIndex, Part
from autograph.cli.module_output import (
    apply_edits,
    chosen_defs,
    def_edits,
    first_unmarked,
    module_header,
    source_lines,
)
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
from autograph.cli.source_file import SourceFile, parse_part
from runtime.ir.errors import AutographError

if TYPE_CHECKING:  # annotations only: convert imports this module
    from autograph.cli.convert import ConvertOptions

__all__ = ["StreamOutcome", "stream_file"]


@dataclass
class StreamOutcome:
    converted: int = 0
    failed: bool = False
    failures: int = 0


def stream_file(
    source: SourceFile, index: ModuleIndex, options: ConvertOptions, convert_source: Callable[..., list[Any]],
    streams: Streams, target: str | None,
) -> StreamOutcome:
    """Convert `source` statement by statement: print the functions, or write the module to `target`."""
    names = options.functions or None
    outcome = StreamOutcome()
    outcome.failed = report_missing(
        streams, source.path, names, index.names_found, lambda: (index.nested, index.classes)
    )
    sink: _Printer | _ModuleWriter | None = None
    if target is not None:
        try:
            sink = _ModuleWriter(source, index, target)
        except OSError as error:
            say(streams, streams.stderr, _cannot_write(target, error))
            outcome.failed = True
            return outcome
    elif not options.check:
        sink = _Printer(streams, source.path, len(options.files) > 1, options.color)
    any_results = False
    try:
        for part in index.parts():
            good = _convert_part(source, index, part, options, convert_source, streams, outcome) if part.defines else None
            any_results |= good is not None
            if isinstance(sink, _ModuleWriter):
                sink.add(part, good or [])
            elif sink is not None:
                for result in good or ():
                    sink.add(result)
        if not any_results and not names:
            say(streams, streams.stderr, nothing_to_convert(source.path, options.all_functions))
        if isinstance(sink, _ModuleWriter):
            try:
                sink.finish()
            except OSError as error:  # a full disk, say: the target stays as it was
                say(streams, streams.stderr, _cannot_write(target or "", error))
                outcome.failed = True
                return outcome
        elif sink is not None:
            sink.finish()
    finally:
        if isinstance(sink, _ModuleWriter):
            sink.discard()  # after finish: nothing left to discard
    if target is not None:
        say(streams, streams.stderr, f"wrote {target}")
    return outcome


def _cannot_write(target: str, error: OSError) -> str:
    reason = error.strerror or str(error)
    return f"{target}: cannot write the converted module: {reason}. Check that its folder exists and is writable"


def _convert_part(
    source: SourceFile, index: ModuleIndex, part: Part, options: ConvertOptions, convert_source: Callable[..., list[Any]],
    streams: Streams, outcome: StreamOutcome,
) -> list[Any] | None:
    """The cleanly converted functions of one statement (None when it has nothing to convert), reported."""
    try:
        results = convert_source(
            part.text(index.lines), source.path, options.functions or None, options.all_functions,
            first_line=part.start, static=index.static,
        )
    except (AutographError, MemoryError) as error:
        if isinstance(error, MemoryError):
            error = MemoryError(
                f"{source.path}:{part.start}: out of memory converting the statement at this line "
                f"(lines {part.start}-{part.end}); split it into smaller functions"
            )
        say(streams, streams.stderr, failure_message(source.path, FileFailure(error, part.start)))
        outcome.failed = True
        outcome.failures += 1
        return []
    report_to = streams.stdout if options.check else streams.stderr
    good = []
    for result in results:
        if result.kept:
            say(streams, streams.stderr, kept_message(source.path, result))
        elif result.error is not None:
            say(streams, report_to, failure_message(source.path, result))
            outcome.failed = True
            outcome.failures += 1
        else:
            good.append(result)
    outcome.converted += len(good)
    return good if any(not r.kept for r in results) else None


class _Printer:
    """Prints converted functions as they come, as the whole-file path prints them together.

    With one file, a `# file:line: name` header precedes each function only
    when there are several: the first is held until a second comes, or the end.
    """

    def __init__(self, streams: Streams, path: str, several_files: bool, color: str) -> None:
        self._streams, self._path, self._color = streams, path, color
        self._several = several_files
        self._held: Any = None
        self._printed = 0

    def add(self, result: Any) -> None:
        if not self._several and self._printed == 0 and self._held is None:
            self._held = result
            return
        self._several = True
        if self._held is not None:
            self._show(self._held)
            self._held = None
        self._show(result)

    def finish(self) -> None:
        if self._held is not None:
            self._show(self._held)

    def _show(self, result: Any) -> None:
        header = f"# {self._path}:{result.lineno}: {result.qualname}\n" if self._several else ""
        text = header + result.code.rstrip("\n") + "\n"
        write(self._streams, ("\n\n" if self._printed else "") + text, "python", self._color)
        self._printed += 1


class _Shifted:
    """A converted function seen with its line relative to its statement's text (whose tree counts from 1)."""

    def __init__(self, result: Any, shift: int) -> None:
        self._result = result
        self.lineno = result.lineno - shift

    def __getattr__(self, name: str) -> Any:
        return getattr(self._result, name)


_COPY_BYTES = 16 * 1024


def _after_lines(text: str, count: int) -> str:
    """`text` without its first `count` lines."""
    at = 0
    for _ in range(max(0, count)):
        at = text.find("\n", at) + 1
        if at == 0:
            return ""
    return text[at:]


def _mode_for(target: str) -> int:
    """The permissions of `target` if it exists, else those a new file gets (0o666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


class _ModuleWriter:
    """Writes the `--output` module statement by statement (see module_output for what changes)."""

    def __init__(self, source: SourceFile, index: ModuleIndex, target: str) -> None:
        self._index = index
        self._path = source.path
        self._target = target
        self._encoding = "utf-8" if source.encoding == "utf-8-sig" else source.encoding
        folder = os.path.dirname(os.path.abspath(target))
        final = tempfile.NamedTemporaryFile(  # noqa: SIM115 - renamed over the target in finish()
            "wb", dir=folder, delete=False, prefix=f".{os.path.basename(target)}.", suffix=".tmp",
        )
        self._final_name = final.name
        os.chmod(final.name, _mode_for(target))  # what writing the target in place would leave
        self._final: IO[str] | None = io.TextIOWrapper(final, encoding=self._encoding, newline="")
        body = tempfile.TemporaryFile("w+b")  # noqa: SIM115 - closed in finish() or discard()
        self._body: IO[str] | None = io.TextIOWrapper(body, encoding=self._encoding, newline="")
        self._final.write(index.lines.between(1, index.import_line - 1))  # the docstring, __future__ imports
        self._next = index.import_line  # the first line not yet copied
        self._marker: str | None = None
        self._marker_import: str | None = None
        self._replaced = False  # any def replaced: the header is needed
        self._any_good = False
        self._last = ""  # the last character written

    def add(self, part: Part, good: list[Any]) -> None:
        if not good:
            return  # copied as it is with the text that follows
        self._any_good = True
        self._copy(part.start)
        text = part.text(self._index.lines)
        shift = part.start - 1
        tree = parse_part(self._path, text, part.start)
        index = self._index
        chosen = chosen_defs(tree, [_Shifted(result, shift) for result in good])
        first_use = first_unmarked(chosen, index.decorator_functions, index.decorator_modules)
        if first_use is not None and self._marker is None:
            self._marker, self._marker_import = index.marker(first_use + shift)
        lines = source_lines(text)
        edits = def_edits(chosen, lines, index.decorator_functions, index.decorator_modules, self._marker or "")
        self._replaced |= bool(chosen)
        edited = apply_edits(lines, edits) if edits else text
        # lines of the part before the header's place (comments above the first def) are written
        # already; no edit touches them
        self._emit(_after_lines(edited, self._next - part.start))
        self._next = part.end + 1

    def finish(self) -> None:
        self._copy(self._index.lines.count + 1)
        if self._any_good and self._last not in ("", "\n"):
            self._emit("\n")  # as the whole-file path: a converted module ends its last line
        assert self._final is not None and self._body is not None
        if self._replaced:
            self._final.write(module_header(self._marker is not None, self._marker_import))
        self._final.flush()
        self._body.flush()
        self._body.buffer.seek(0)
        shutil.copyfileobj(self._body.buffer, self._final.buffer, _COPY_BYTES)  # encoded alike: bytes as they are
        self._body.close()
        self._body = None
        self._final.close()
        os.replace(self._final_name, self._target)
        self._final = None

    def discard(self) -> None:
        """Remove the temporary files of an output not finished (an error, an interrupt)."""
        if self._body is not None:
            self._body.close()
        if self._final is not None:
            self._final.close()
            try:
                os.unlink(self._final_name)
            except OSError:
                pass

    def _copy(self, until: int) -> None:
        """Copy the original text from the next line not copied up to line `until` (not included)."""
        if until > self._next:
            self._emit(self._index.lines.between(self._next, until - 1))
            self._next = until

    def _emit(self, text: str) -> None:
        if text:
            assert self._body is not None
            self._body.write(text)
            self._last = text[-1]
