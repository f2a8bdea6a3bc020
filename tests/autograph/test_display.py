"""Code display: a str that highlights itself in Jupyter, colours on terminals."""

from __future__ import annotations

import io

from autograph.display import Code, highlight_html, highlight_terminal, use_color


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_code_is_a_plain_str_for_print_and_equality():
    code = Code("def f(x):\n    return x\n")
    assert code == "def f(x):\n    return x\n"
    assert isinstance(code, str)
    assert str(code) == code and type(str(code)) is str
    assert code.splitlines()[0] == "def f(x):"


def test_code_displays_as_highlighted_html():
    html = Code("def f(x):\n    return x\n")._repr_html_()
    assert html.startswith("<div") and "style=" in html
    assert ">def</span>" in html and "return" in html


def test_ipython_pretty_printing_shows_the_code_itself():
    class Printer:
        text = staticmethod(lambda value: shown.append(value))

    shown: list[str] = []
    Code("def f(x):\n    return x\n")._repr_pretty_(Printer(), False)
    assert shown == ["def f(x):\n    return x\n"]


def test_terminal_highlighting_adds_colour_and_keeps_text():
    coloured = highlight_terminal("def f(x):\n    return x")
    assert "\x1b[" in coloured
    assert not coloured.endswith("\n")
    assert "+x" in highlight_terminal("+x\n-y\n", "diff")
    assert "<span" in highlight_html("-a\n+b\n", "diff")


def test_use_color_follows_tty_no_color_and_override(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(Tty()) is True
    assert use_color(io.StringIO()) is False
    assert use_color(io.StringIO(), "always") is True
    assert use_color(Tty(), "never") is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(Tty()) is False
    monkeypatch.setenv("NO_COLOR", "")
    assert use_color(Tty()) is True


def test_to_code_returns_code_that_displays_highlighted():
    import autograph as ag

    def f(x):
        while x > 1:
            x = x // 2
        return x

    code = ag.to_code(f)
    assert isinstance(code, Code) and isinstance(code, str)
    assert "ag__.while_stmt" in code
    assert "while_stmt" in code._repr_html_()
