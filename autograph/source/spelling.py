"""Numbers printed as the user wrote them: `1e-9`, `10_000`, `0xFF` rather than `1e-09`, `10000`, `255`.

The converted code is read by people (`ag.to_code`, tracebacks): a literal
keeps its spelling. `mark_spellings` records the source text of each int,
float and complex literal whose `repr` differs, on the node (`spelling`),
and the printer uses it (`expressions.Expressions._constant`). Only a
spelling that reads back as the very same value and type is kept.
"""

from __future__ import annotations

import ast
import re

import gast

__all__ = ["mark_spellings"]

_NUMBERS = (int, float, complex)
# a number literal (and, harmlessly, digits inside names' neighbours, strings and comments)
_LITERAL = re.compile(
    r"(?<![\w.])(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)"
)


def _respelled(text: str) -> bool:
    """Whether some literal of `text` is written otherwise than its repr: most functions have
    none, and are not walked."""
    for match in _LITERAL.finditer(text):
        spelled = match.group()
        try:
            if repr(ast.literal_eval(spelled)) != spelled:
                return True
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return True
    return False


def mark_spellings(tree: gast.AST, text: str) -> None:
    """Give every number literal of `tree` (parsed from `text`) written otherwise than its repr
    a `spelling`: the text it was written as."""
    if not _respelled(text):
        return
    lines: list[bytes] | None = None
    for node in gast.walk(tree):
        if type(node) is not gast.Constant or type(node.value) not in _NUMBERS:
            continue
        line, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if line is None or line != end or node.end_col_offset is None:
            continue
        if lines is None:
            lines = [part.encode("utf-8") for part in text.splitlines()]
        if line > len(lines):
            continue
        try:
            spelled = lines[line - 1][node.col_offset:node.end_col_offset].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if spelled == repr(node.value):
            continue
        try:
            value = ast.literal_eval(spelled)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if type(value) is type(node.value) and value == node.value:
            node.spelling = spelled
