"""How generated code is shown: colours on a terminal, highlighted HTML in Jupyter.

`Code` is the `str` that `ag.to_code` returns: `print`, `==` and slicing treat
it as the plain source text, while a notebook shows it highlighted through
`_repr_html_`. Highlighting uses Pygments, which lexes Python and unified
diffs far better than a hand-written tokenizer would.
"""

from __future__ import annotations

import os
from typing import IO, Any

from pygments import highlight
from pygments.formatters import HtmlFormatter, TerminalFormatter
from pygments.lexers import DiffLexer, PythonLexer

__all__ = ["Code", "highlight_terminal", "highlight_html", "use_color"]


class Code(str):
    """Python source text that displays highlighted in Jupyter."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        return highlight_html(str(self))

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's terminal shows the code itself, not a quoted one-line str."""
        printer.text(str(self))


def highlight_terminal(text: str, language: str = "python") -> str:
    """ANSI-coloured text for a terminal; `language` is "python" or "diff"."""
    lexer = DiffLexer() if language == "diff" else PythonLexer()
    coloured = highlight(text, lexer, TerminalFormatter())
    # Pygments always ends with a newline; keep the caller's ending.
    if not text.endswith("\n") and coloured.endswith("\n"):
        coloured = coloured[:-1]
    return coloured


def highlight_html(text: str, language: str = "python") -> str:
    """Self-contained highlighted HTML (inline styles, so no stylesheet is needed)."""
    lexer = DiffLexer() if language == "diff" else PythonLexer()
    return highlight(text, lexer, HtmlFormatter(noclasses=True, nobackground=True))


def use_color(stream: IO[str], mode: str = "auto") -> bool:
    """Whether to colour `stream`: "always", "never", or "auto" (a tty, and no NO_COLOR).

    NO_COLOR (https://no-color.org) set to any non-empty value turns auto colour off.
    """
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
