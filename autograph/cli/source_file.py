"""Reading a Python file for static conversion: bytes, PEP 263 decoding, syntax check.

`autograph convert` must never import the file it converts, so everything it
needs to know comes from the bytes: the encoding (a BOM or a `# -*- coding:
... -*-` cookie, as `tokenize.open` decides), the text, and whether it parses.
Every problem becomes a `SourceError` whose message starts with `file:line:`.
"""

from __future__ import annotations

import ast
import codecs
import io
import tokenize
from dataclasses import dataclass
from typing import BinaryIO

from autograph.source.deep import retry_deep

__all__ = ["SourceFile", "SourceError", "read_source", "decode_source", "parse_source", "parse_part"]

STDIN_NAME = "<stdin>"


class SourceError(Exception):
    """A file that cannot be read, decoded or parsed; the message names file:line."""


@dataclass(frozen=True)
class SourceFile:
    """A decoded source file; `path` is what messages show ("<stdin>" for -)."""

    path: str
    text: str
    encoding: str


def read_source(path: str, stdin: BinaryIO | None = None) -> SourceFile:
    """Read and decode `path` ("-" reads standard input); never executes it."""
    if path == "-":
        data = stdin.read() if stdin is not None else b""
        shown = STDIN_NAME
    else:
        shown = path
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            reason = error.strerror or str(error)
            raise SourceError(f"{path}: cannot read: {reason}") from None
    text, encoding = decode_source(data, shown)
    return SourceFile(shown, text, encoding)


def decode_source(data: bytes, path: str) -> tuple[str, str]:
    """Text and encoding of Python source bytes, with `tokenize.open`'s rules."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if _has_cookie(data):
            line = _cookie_line(data)
            raise SourceError(
                f"{path}:{line}: cannot decode: {error}. Declare a valid encoding "
                f"(for example '# -*- coding: utf-8 -*-') or remove the coding comment."
            ) from None
        encoding = "utf-8"  # no coding comment, a first line that is not UTF-8: decoding names the byte
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        byte = data[error.start : error.start + 1].hex()
        raise SourceError(
            f"{path}:{line}: cannot decode byte 0x{byte} as {encoding}. Save the file "
            f"as UTF-8, or declare its encoding in a coding comment on line 1 or 2 "
            f"(PEP 263), for example '# -*- coding: latin-1 -*-'."
        ) from None
    if encoding == "utf-8-sig" and text.startswith(codecs.BOM_UTF8.decode("utf-8")):
        text = text[1:]
    # Universal newlines, as a text-mode open would give.
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def parse_source(source: SourceFile) -> ast.Module:
    """The module's AST; a syntax error becomes `file:line: syntax error ...`.

    Code nested deeper than the default recursion limit lets `ast.parse` build
    its tree is parsed again on a deep stack (autograph.source.deep); what
    still fails (RecursionError, MemoryError: "too complex") is a SourceError.
    """
    return parse_part(source.path, source.text)


def parse_part(path: str, text: str, first_line: int = 1) -> ast.Module:
    """`parse_source` for the part of a file starting at line `first_line`: errors name the file's line."""
    try:
        return retry_deep(lambda: ast.parse(text, filename=path))
    except (RecursionError, MemoryError) as error:
        raise SourceError(
            f"{path}:{first_line}: cannot parse: Python's parser ran out of "
            f"{'recursion depth' if isinstance(error, RecursionError) else 'memory'} on this file "
            f"({str(error) or type(error).__name__}). Split its most deeply nested expression or "
            f"statement (assign parts of it to variables), or split the file."
        ) from None
    except SyntaxError as error:
        line = (error.lineno or 1) + first_line - 1
        message = f"{path}:{line}: syntax error: {error.msg}"
        shown = (_line(text, error.lineno) or error.text or "").rstrip("\n")
        if shown.strip():
            stripped = shown.lstrip()
            caret = max(0, (error.offset or 1) - 1 - (len(shown) - len(stripped)))
            message += f"\n    {stripped}\n    {' ' * caret}^"
        message += "\nFix the syntax first: autograph converts only code Python can parse."
        raise SourceError(message) from None
    except ValueError as error:  # e.g. source code string cannot contain null bytes
        raise SourceError(f"{path}:{first_line}: cannot parse: {error}") from None


def _line(text: str, number: int | None) -> str | None:
    """Line `number` of `text`: what a SyntaxError's own `text` may have read from another file
    (the one named `filename`, when `text` is only a part of it)."""
    if not number or number < 1:
        return None
    at = 0
    for _ in range(number - 1):
        at = text.find("\n", at) + 1
        if at == 0:
            return None
    end = text.find("\n", at)
    return text[at : end if end >= 0 else len(text)]


def _has_cookie(data: bytes) -> bool:
    return any(b"coding" in line for line in data.splitlines()[:2])


def _cookie_line(data: bytes) -> int:
    for number, line in enumerate(data.splitlines()[:2], start=1):
        if b"coding" in line:
            return number
    return 1
