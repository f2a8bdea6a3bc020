"""Literals: how the emitter spells constants, strings and f-strings.

The spelling is the one `ast.unparse` chooses, so converted text does not
depend on which of the two printed it:

    repr(value)                           most constants: 'a\\nb', 1.5, b'x'
    1e309, (1e309-1e309)                  infinities and NaN, which have no literal
    '''line one\\nline two'''              docstrings: triple quotes, real newlines
    f'{x!r:>{width}} done'                f-strings: one quote type for every part

Inside an f-string replacement field no backslash may appear (before Python
3.12), so strings there pick whichever quote type avoids escapes.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable

import gast

__all__ = ["constant", "continued_lines", "field", "joined_str", "quoted"]

_INF = "1e" + repr(sys.float_info.max_10_exp + 1)
SINGLE_QUOTES = ("'", '"')
MULTI_QUOTES = ('"""', "'''")
ALL_QUOTES = SINGLE_QUOTES + MULTI_QUOTES


def constant(value: object, avoid_backslashes: bool = False) -> str:
    """One constant's literal (not a tuple, not `...`, no `u` prefix)."""
    if isinstance(value, (float, complex)):
        return repr(value).replace("inf", _INF).replace("nan", f"({_INF}-{_INF})")
    if avoid_backslashes and isinstance(value, str):
        return quoted(value)
    return repr(value)


def _escape(char: str, keep_whitespace: bool) -> str:
    if keep_whitespace and char in "\n\t":
        return char
    if char == "\\" or not char.isprintable():
        return char.encode("unicode_escape").decode("ascii")
    return char


def _literal_body(text: str, quotes: tuple[str, ...] | list[str], escape_whitespace: bool = False) -> tuple[str, list[str]]:
    """`text` escaped as little as possible, and the quote types that can enclose it (best first)."""
    if text.isprintable() and "\\" not in text:
        body = text
    else:
        body = "".join([_escape(c, not escape_whitespace) for c in text])
    usable = [q for q in quotes if q in MULTI_QUOTES] if "\n" in body else list(quotes)
    usable = [q for q in usable if q not in body]
    if not usable:
        spelled = repr(text)
        quote = next((q for q in quotes if spelled[0] in q), spelled[0])
        return spelled[1:-1], [quote]
    if body:
        # a quote type ending like the text would need its last character escaped: prefer another
        usable.sort(key=lambda q: q[0] == body[-1])
        if usable[0][0] == body[-1]:
            body = body[:-1] + "\\" + body[-1]
    return body, usable


def quoted(text: str, quotes: tuple[str, ...] = ALL_QUOTES) -> str:
    """A string literal for `text` that avoids backslashes where some quote type allows."""
    body, usable = _literal_body(text, quotes)
    return f"{usable[0]}{body}{usable[0]}"


Expression = Callable[[gast.expr], str]


def field(node: gast.FormattedValue, inner: Expression) -> str:
    """One replacement field, braces included: `{x!r:>{width}}`."""
    text = inner(node.value)
    if "\\" in text:
        raise ValueError("Unable to avoid backslash in f-string expression part")
    parts = ["{", " " if text.startswith("{") else "", text]
    if node.conversion != -1:
        parts.append(f"!{chr(node.conversion)}")
    if node.format_spec:
        parts.append(":")
        parts.append(_inside(node.format_spec, inner))
    parts.append("}")
    return "".join(parts)


def _inside(node: gast.AST, inner: Expression) -> str:
    """The text between an f-string's quotes for one part (or a whole format spec)."""
    if isinstance(node, gast.JoinedStr):
        return "".join([_inside(value, inner) for value in node.values])
    if isinstance(node, gast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, gast.FormattedValue):
        return field(node, inner)
    raise ValueError(f"Unexpected node inside JoinedStr, {node!r}")


def joined_str(node: gast.JoinedStr, inner: Expression, avoid_backslashes: bool) -> str:
    """An f-string; `inner` prints a replacement field's expression (backslashes avoided)."""
    if avoid_backslashes:
        return "f" + quoted(_inside(node, inner))
    parts = [(_inside(value, inner), isinstance(value, gast.Constant)) for value in node.values]
    quotes: list[str] = list(ALL_QUOTES)
    bodies = []
    for text, is_constant in parts:
        body, usable = _literal_body(text, quotes, escape_whitespace=is_constant)
        if set(usable).isdisjoint(quotes):
            # no one quote type fits every part: repr each part inside triple single quotes
            quotes = ["'''"]
            bodies = [repr('"' + text)[2:-1] for text, _ in parts]
            break
        bodies.append(body)
        quotes = usable
    return f"f{quotes[0]}{''.join(bodies)}{quotes[0]}"


def continued_lines(text: str) -> frozenset[int]:
    """The lines of source `text` (1-based) that begin inside a string literal.

    Whoever re-indents source must leave these as they are: their leading
    blanks are characters of the string. (A line inside an f-string's
    replacement field is counted too; its blanks mean nothing either way.)
    """
    lines: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and (node.end_lineno or node.lineno) > node.lineno:
            lines.update(range(node.lineno + 1, (node.end_lineno or node.lineno) + 1))
    return frozenset(lines)
