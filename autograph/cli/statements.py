"""A module's top-level statements, found without building the module's tree.

`autograph convert` streams a file one top-level statement at a time (a def
with its decorators, a class, an import, an assignment): parsing, converting
and writing each on its own keeps memory bounded by the largest statement, not
by the file, where the whole file's tree costs about 200 MB per MB of source.

The split comes from `tokenize`, which reads a line at a time: a statement
starts at the first token of a logical line at indentation depth 0, unless
that line continues the one before (`else:`, `elif`, `except`, `finally:` of a
compound statement, or the `def`/`class` after a decorator). Comments and blank
lines between statements belong to no statement: the text between them is
copied as it is.
"""

from __future__ import annotations

import io
import tokenize
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Statement", "SplitError", "split_statements"]

# a logical line at depth 0 starting with one of these continues the compound statement before it
_CONTINUING = frozenset({"else", "elif", "except", "finally"})
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE})


class SplitError(Exception):
    """The tokenizer refused the text (an unterminated string, a bad dedent): parse it whole for the message."""


@dataclass(frozen=True)
class Statement:
    """Lines `start`..`end` (1-based, inclusive) of the file hold one top-level statement."""

    start: int
    end: int


class Lines:
    """Where each line of a text starts: the text of a range of lines without a list of all of them."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts = array("q", [0])
        find = text.find
        at = find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = find("\n", at + 1)
        if starts[-1] != len(text):
            starts.append(len(text))  # the last line has no line break
        self._starts = starts

    @property
    def count(self) -> int:
        return len(self._starts) - 1

    def offset(self, line: int) -> int:
        """The index in the text where `line` starts (`count + 1`: the text's end)."""
        return self._starts[min(line, len(self._starts)) - 1]

    def between(self, first: int, last: int) -> str:
        """Lines `first`..`last` (inclusive, 1-based), line breaks kept."""
        return self.text[self.offset(first) : self.offset(last + 1)]


def split_statements(text: str) -> Iterator[Statement]:
    """The top-level statements of `text`, in order; SplitError if it does not tokenize."""
    readline = io.StringIO(text).readline
    depth = 0
    start = 0  # the current statement's first line; 0 before the first
    end = 0  # its last line so far
    after_decorator = False
    line_start = True  # the next significant token begins a logical line
    try:
        for token in tokenize.generate_tokens(readline):
            kind = token.type
            if kind in _SKIPPED:
                if kind == tokenize.INDENT:
                    depth += 1
                elif kind == tokenize.DEDENT:
                    depth -= 1
                elif kind == tokenize.NEWLINE:
                    end = token.end[0]
                    line_start = True
                continue
            if kind == tokenize.ENDMARKER:
                break
            if line_start and depth == 0:
                continues = after_decorator or (kind == tokenize.NAME and token.string in _CONTINUING)
                if not continues:
                    if start:
                        yield Statement(start, end)
                    start = token.start[0]
                after_decorator = kind == tokenize.OP and token.string == "@"
            line_start = False
            end = max(end, token.end[0])
    except (tokenize.TokenError, SyntaxError) as error:  # IndentationError is a SyntaxError
        raise SplitError(str(error)) from None
    if start:
        yield Statement(start, end)
