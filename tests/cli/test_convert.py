"""`autograph convert` options, run in-process against a stand-in converter.

The stand-in (`fake_converter`) has the pipeline's signature, so these tests
pin the CLI's own behaviour: selection, printing, diff, --output, --check,
--stats, colour, progress and exit codes. `test_cli.py` runs the real thing.
"""

from __future__ import annotations

import ast
import io
from types import SimpleNamespace

import pytest

from autograph.cli import convert as convert_command
from autograph.cli import main
from tests.cli import fake_converter
from tests.cli.conftest import FIXTURES

DECORATED = str(FIXTURES / "decorated.py")
GENERATOR = str(FIXTURES / "generator.py")


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    monkeypatch.setattr(convert_command, "load_converter", lambda: fake_converter.convert_source)
    monkeypatch.delenv("NO_COLOR", raising=False)


def run(*argv: str, stdin: bytes = b"", stdout=None, stderr=None):
    out, err = stdout or io.StringIO(), stderr or io.StringIO()
    status = main(list(argv), io.BytesIO(stdin), out, err)
    return status, out.getvalue(), err.getvalue()


def test_prints_decorated_functions_however_imported():
    status, out, err = run("convert", DECORATED)
    assert status == 0, err
    headers = [line for line in out.splitlines() if line.startswith("# ")]
    assert [h.rsplit(": ", 1)[1] for h in headers] == ["clip_sum", "countdown", "sign", "Scaler.scale"]
    assert headers[0] == f"# {DECORATED}:11: clip_sum"
    assert "def helper" not in out


def test_function_option_selects_by_name_and_reports_missing_ones():
    status, out, _ = run("convert", DECORATED, "--function", "helper")
    assert status == 0
    assert out.startswith("def helper(x):\n    " + fake_converter.MARK)
    status, _, err = run("convert", DECORATED, "-f", "helper", "-f", "nope")
    assert status == 1
    assert f"{DECORATED}:1: no function named 'nope'" in err


def test_function_option_naming_a_class_lists_its_methods():
    status, _, err = run("convert", DECORATED, "-f", "Scaler")
    assert status == 1
    assert f"{DECORATED}:42: 'Scaler' is a class" in err
    assert "such as Scaler.__init__, Scaler.scale" in err


def test_failures_are_file_line_and_exit_1_while_others_convert():
    status, out, err = run("convert", GENERATOR)
    assert status == 1
    assert "def fine(x):" in out
    assert err.startswith(f"{GENERATOR}:12: 'yield' makes 'numbers' a generator")


def test_check_only_reports_failures():
    status, out, err = run("convert", GENERATOR, "--check")
    assert status == 1
    assert "1 of 2 functions convert cleanly" in err
    assert out.splitlines() == [
        f"{GENERATOR}:12: 'yield' makes 'numbers' a generator, which cannot be converted; "
        "return a list instead, or mark it ag.do_not_convert"
    ]
    status, out, err = run("convert", DECORATED, "--check")
    assert (status, out) == (0, "")
    assert "4 of 4 functions convert cleanly" in err


def test_failure_message_says_cannot_convert_once():
    def message(error):
        return convert_command.failure_message("m.py", SimpleNamespace(error=error, lineno=3, qualname="gen"))

    assert message(ValueError("cannot convert 'gen': it uses `yield`")) == "m.py:3: cannot convert 'gen': it uses `yield`"
    assert message(ValueError("bad")) == "m.py:3: cannot convert 'gen': bad"
    assert message(ValueError("m.py:4: located")) == "m.py:4: located"


def test_diff_is_unified_against_the_original():
    status, out, _ = run("convert", DECORATED, "--diff")
    assert status == 0
    assert out.startswith(f"--- {DECORATED}\n+++ {DECORATED} (converted)\n@@ ")
    assert "+from autograph.converted_call import AG as ag__\n" in out
    assert "-@ag.function\n+@ag.function(autograph=False)\n" in out


def test_output_writes_a_parseable_module(tmp_path):
    target = tmp_path / "out.py"
    status, out, err = run("convert", DECORATED, "--all", "--output", str(target))
    assert (status, out) == (0, "")
    assert f"wrote {target}" in err
    module = target.read_text()
    ast.parse(module)
    assert module.count(fake_converter.MARK) == 6  # 4 decorated + helper + __init__
    assert "@stage(autograph=False)" in module


def test_output_directory_for_several_files(tmp_path):
    status, _, _ = run("convert", DECORATED, str(FIXTURES / "loop.py"), "-o", str(tmp_path / "out"))
    assert status == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["decorated.py", "loop.py"]


def test_output_keeps_the_source_encoding(tmp_path):
    target = tmp_path / "out.py"
    assert run("convert", str(FIXTURES / "latin1.py"), "-o", str(target))[0] == 0
    assert b'"caf\xe9"' in target.read_bytes()


def test_stdin_is_read_when_file_is_dash():
    status, out, _ = run("convert", "-", "--all", stdin=b"def f(x):\n    return x\n")
    assert status == 0
    assert out.startswith("def f(x):")


def test_stats_print_a_time_per_function():
    status, _, err = run("convert", DECORATED, "--stats")
    lines = [line for line in err.splitlines() if " ms  " in line]
    assert status == 0 and len(lines) == 4
    assert lines[0].split()[1:] == ["ms", f"{DECORATED}:11", "clip_sum"]
    assert "4 functions converted in" in err


def test_colour_on_terminals_only_and_never_with_no_color(monkeypatch):
    assert "\x1b[" not in run("convert", DECORATED)[1]
    assert "\x1b[" in run("convert", DECORATED, stdout=Tty())[1]
    assert "\x1b[" in run("convert", DECORATED, "--color", "always")[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run("convert", DECORATED, stdout=Tty())[1]


def test_progress_is_drawn_on_a_terminal_stderr_only():
    files = [DECORATED, str(FIXTURES / "loop.py")]
    _, _, err = run("convert", *files, "--check", stderr=Tty())
    assert f"[2/2] {files[1]}" in err and "\r\x1b[K" in err
    _, _, err = run("convert", *files, "--check")
    assert "[1/2]" not in err


def test_file_without_decorated_functions_says_how_to_choose(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("def f(x):\n    return x\n")
    status, out, err = run("convert", str(path))
    assert (status, out) == (0, "")
    assert "pass --all" in err
    path.write_text("x = 1\n")
    assert run("convert", str(path), "--all")[2].endswith("no function to convert: the file defines none\n")


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["convert"])
    assert info.value.code == 2
    assert "required: FILE" in capsys.readouterr().err
