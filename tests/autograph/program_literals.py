"""Multi-line string literals for the program generators (Python mode and staged).

A literal whose text spans lines keeps the blanks at the start of its
continuation lines: they are characters of the string. Converting a method
or a nested function re-indents its source, which must leave those lines
alone; these literals (triple-quoted strings, f-strings, bytes, a backslash
continuation inside a one-line string) are how the fuzzers check that.
Each literal's continuation lines start at a random column, some further
left than the statement that holds it, and `{...}` fields hold only
`fields` (expressions safe to format: Python ints, never a staged value).

    >>> print(multiline_literal(ex, ["i + 1"]))
    f'''alpha {i + 1}
          beta gamma'''
"""

from __future__ import annotations

from tests.autograph.program_expressions import Expressions

__all__ = ["multiline_literal"]

# no quote at either end (it would merge with the closing quotes), no backslash, ASCII (bytes)
_WORDS = ("alpha", "beta gamma", "x = 1", "# not a comment", "a 'quoted' word", "tab\there", "")


def _lines(ex: Expressions, count: int) -> list[str]:
    lines = [ex.pick(_WORDS[:-1])]
    for _ in range(count):
        blanks = ex.pick(["", " ", "  ", "    ", "      ", "        ", "            ", "\t  "])
        lines.append(blanks + ex.pick(_WORDS))
    return lines


def multiline_literal(ex: Expressions, fields: list[str]) -> str:
    """A str or bytes literal over 2-4 lines; an f-string's fields are drawn from `fields`."""
    form = ex.weighted([("str", 3), ("fstring", 3 * bool(fields)), ("bytes", 2), ("backslash", 1)])
    lines = _lines(ex, ex.num(1, 3))
    if form == "backslash":  # a one-line string continued: the next line's blanks are kept
        return "'" + "\\\n".join(line.replace("'", "") for line in lines) + "'"
    quote = ex.pick(['"""', "'''"])
    if form == "fstring":
        where = ex.num(0, len(lines) - 1)
        lines[where] += f" {{{ex.pick(fields)}}} {{{{braces}}}}"
    prefix = {"str": ex.pick(["", "r"]), "fstring": "f", "bytes": ex.pick(["b", "rb"])}[form]
    return prefix + quote + "\n".join(lines) + quote
