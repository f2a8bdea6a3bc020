"""A module's top-level statements, found without building the module's tree.

`autograph convert` streams a file one top-level statement at a time (a def
with its decorators, a class, an import, an assignment): parsing, converting
and writing each on its own keeps memory bounded by the largest statement, not
by the file, where the whole file's tree costs about 200 MB per MB of source.

Two ways to split, the second checking the first:

- `candidate_lines`: the lines that may start a statement, found by one
  regular expression over the text: a letter, `_` or `@` in column 0 (not
  `else`, `elif`, `except`, `finally`, nor a def after a decorator). A line
  in column 0 inside a multi-line string or brackets is a false candidate,
  and then the text before it does not parse: the caller parses each run of
  lines between candidates anyway, and on a failure asks the tokenizer.
- `split_statements`: `tokenize`, which reads a line at a time: a statement
  starts at the first token of a logical line at indentation depth 0, unless
  that line continues the one before (`else:`, `elif`, `except`, `finally:`
  of a compound statement, or the `def`/`class` after a decorator). Exact,
  but about ten times slower than the expression.

Comments and blank lines between statements belong to no statement: the text
between them is copied as it is.
"""

from __future__ import annotations

import bisect
import re
import tokenize
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["Lines", "Statement", "SplitError", "candidate_lines", "split_statements", "statement_end"]

# what may begin a top-level statement, in column 0 (a merged pair of statements is harmless:
# one that starts otherwise, with a quote or a bracket, joins the statement before it)
_CANDIDATE = re.compile(r"^(?!(?:else|elif|except|finally)\b)[A-Za-z_@]", re.MULTILINE)

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
        self.starts = starts

    @property
    def count(self) -> int:
        return len(self.starts) - 1

    def offset(self, line: int) -> int:
        """The index in the text where `line` starts (`count + 1`: the text's end)."""
        return self.starts[min(line, len(self.starts)) - 1]

    def between(self, first: int, last: int) -> str:
        """Lines `first`..`last` (inclusive, 1-based), line breaks kept."""
        return self.text[self.offset(first) : self.offset(last + 1)]


def candidate_lines(lines: Lines) -> array:
    """The lines that may start a top-level statement, in order (see the module's docstring)."""
    found = array("q")
    after_decorator = False
    starts = lines.starts
    for match in _CANDIDATE.finditer(lines.text):
        decorator = match.group() == "@"
        if not after_decorator:
            found.append(bisect.bisect_right(starts, match.start()))
        after_decorator = decorator
    return found


def statement_end(lines: Lines, first: int) -> int:
    """The last line of the statement that starts at line `first` (a true start), by the tokenizer."""
    for statement in split_statements(_reader(lines, first), first - 1):
        return statement.end
    return lines.count  # only comments and blank lines


def _reader(lines: Lines, first: int) -> Callable[[], str]:
    """A `readline` over the text from line `first` on, without copying the rest of it."""
    text = lines.text
    at = lines.offset(first)

    def readline() -> str:
        nonlocal at
        end = text.find("\n", at)
        end = len(text) if end < 0 else end + 1
        line, at = text[at:end], end
        return line

    return readline


def split_statements(readline: Callable[[], str], shift: int = 0) -> Iterator[Statement]:
    """The top-level statements `readline` reads, in order, their lines `shift` further on;
    SplitError if the text does not tokenize."""
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
                    end = token.end[0] + shift
                    line_start = True
                continue
            if kind == tokenize.ENDMARKER:
                break
            if line_start and depth == 0:
                continues = after_decorator or (kind == tokenize.NAME and token.string in _CONTINUING)
                if not continues:
                    if start:
                        yield Statement(start, end)
                    start = token.start[0] + shift
                after_decorator = kind == tokenize.OP and token.string == "@"
            line_start = False
            end = max(end, token.end[0] + shift)
    except (tokenize.TokenError, SyntaxError) as error:  # IndentationError is a SyntaxError
        raise SplitError(str(error)) from None
    if start:
        yield Statement(start, end)
