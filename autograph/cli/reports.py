"""What `autograph convert` prints: where each kind of output goes, and the messages about functions.

Shared by the whole-file path (`convert`) and the statement-by-statement one
(`convert_stream`), so both report a function the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any, BinaryIO

from autograph.cli.progress import Progress
from autograph.display import highlight_terminal, use_color

__all__ = [
    "FileFailure", "Streams", "failure_message", "kept_message", "nothing_to_convert", "report_missing",
    "say", "write",
]

_LOCATED = re.compile(r"^\S.*?:\d+")


@dataclass
class Streams:
    stdin: BinaryIO | None
    stdout: IO[str]
    stderr: IO[str]
    progress: Progress


@dataclass
class FileFailure:
    """A failure of a whole file (or of one top-level statement), reported like a function's."""

    error: Exception
    lineno: int = 1
    qualname: str = "<module>"


def failure_message(path: str, result: Any) -> str:
    """`file:line: what rule, how to fix` for a function that failed to convert."""
    message = str(result.error).strip() or type(result.error).__name__
    if _LOCATED.match(message):
        return message
    if message.startswith("cannot convert "):  # the converter's own errors say so already
        return f"{path}:{result.lineno}: {message}"
    return f"{path}:{result.lineno}: cannot convert {result.qualname!r}: {message}"


def kept_message(path: str, result: Any) -> str:
    """A generator --all met: kept as written, as converted code would call it."""
    return (
        f"{path}:{result.lineno}: kept {result.qualname!r} as written: it is {result.kept}, which "
        f"autograph never converts (converted code calls it as it is)"
    )


def nothing_to_convert(path: str, all_functions: bool) -> str:
    if all_functions:
        return f"{path}: no function to convert: the file defines none"
    return (
        f"{path}: no function to convert: none is decorated with @ag.function; "
        f"pass --all to convert every function, or --function NAME"
    )


def report_missing(
    streams: Streams, path: str, names: Sequence[str] | None, found: set[str],
    where: Callable[[], tuple[dict[str, tuple[int, str]], dict[str, tuple[int, list[str]]]]],
) -> bool:
    """Say which `--function` names no function has (a class, a nested def, or nothing); True if any.

    `where()` gives the nested defs and the classes by qualified name, with
    their lines: asked for only when a name is missing.
    """
    missing = [name for name in names or () if name not in found]
    nested, classes = where() if missing else ({}, {})
    for name in missing:
        if name in classes:
            line, methods = classes[name]
            some = ", ".join(f"{name}.{m}" for m in methods[:3]) or f"{name}.method_name"
            say(
                streams, streams.stderr,
                f"{path}:{line}: {name!r} is a class; --function takes a function or a "
                f"method: pass one of its methods, such as {some}",
            )
            continue
        if name in nested:
            line, outer = nested[name]
            say(
                streams, streams.stderr,
                f"{path}:{line}: {name!r} is defined inside {outer!r}, and a nested function "
                f"is converted with the function that defines it: pass --function {outer}",
            )
            continue
        say(
            streams, streams.stderr,
            f"{path}:1: no function named {name!r}; --function takes a function "
            f"name or a qualified name such as 'Model.call'",
        )
    return bool(missing)


def write(streams: Streams, text: str, language: str, color: str) -> None:
    """Print converted code or a diff on stdout (highlighted on a terminal)."""
    streams.progress.clear()
    if use_color(streams.stdout, color):
        text = highlight_terminal(text, language)
    streams.stdout.write(text)
    streams.stdout.flush()


def say(streams: Streams, stream: IO[str], message: str) -> None:
    """One message line on `stream`, after erasing the progress line."""
    streams.progress.clear()
    stream.write(message.rstrip("\n") + "\n")
    stream.flush()
