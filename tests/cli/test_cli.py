"""The real `autograph` console script, run in a subprocess on fixtures/cli."""

from __future__ import annotations

import shutil

from tests.cli.conftest import FIXTURES, SCRIPT


def test_console_script_is_installed():
    assert SCRIPT.exists(), "pip install -e . creates the autograph console script"


def test_help_lists_commands_and_examples(cli):
    done = cli("--help")
    assert done.returncode == 0
    assert b"convert" in done.stdout and b"graph" in done.stdout
    convert_help = cli("convert", "--help").stdout.decode()
    assert "examples:" in convert_help and "never imports" in convert_help
    graph_help = cli("graph", "--help").stdout.decode()
    assert "IMPORTS the module" in graph_help and "float32[None,3]" in graph_help


def test_usage_errors_exit_2(cli):
    assert cli("convert", "x.py", "--bogus").returncode == 2
    done = cli("graph", "no_colon_here")
    assert done.returncode == 2
    assert b"MODULE:FUNCTION" in done.stderr
    done = cli("graph", "m.py:f", "--arg", "float32[3,x]")
    assert done.returncode == 2 and b"bad dimension 'x'" in done.stderr


def test_syntax_error_is_file_line_and_exit_1(cli):
    path = FIXTURES / "syntax_error.py"
    done = cli("convert", str(path))
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().startswith(f"{path}:6: syntax error:")


def test_undecodable_bytes_are_a_clear_error(cli):
    path = FIXTURES / "bad_bytes.py"
    done = cli("convert", str(path))
    assert done.returncode == 1
    assert done.stderr.decode().startswith(f"{path}:6: cannot decode byte 0xe9 as utf-8")
    assert b"coding" in done.stderr


def test_missing_file_exits_1(cli, tmp_path):
    done = cli("convert", str(tmp_path / "nope.py"))
    assert done.returncode == 1
    assert b"cannot read" in done.stderr


def test_graph_to_svg_without_graphviz_says_how_to_install(cli, tmp_path):
    target = tmp_path / "g.svg"
    done = cli("graph", f"{FIXTURES / 'loop.py'}:plain", "--arg", "float32[None,3]",
               "-o", str(target), env={"PATH": str(tmp_path)})
    assert done.returncode == 1
    assert b"Install Graphviz" in done.stderr and b".dot" in done.stderr
    assert not target.exists()


def test_graph_of_plain_function_to_dot_and_svg(cli, tmp_path):
    spec = f"{FIXTURES / 'loop.py'}:plain"
    done = cli("graph", spec, "--arg", "float32[None,3]")
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode()
    assert text.startswith('digraph "plain"')
    assert 'label="multiply(x, 2)\\nfloat32[None, 3]"' in text
    assert "loop.py:20  return x * 2 + 1" in text
    svg = tmp_path / "g.svg"
    done = cli("graph", spec, "--arg", "float32[None,3]", "-o", str(svg))
    if shutil.which("dot") is None:  # the test above covers the error
        assert done.returncode == 1
        return
    assert done.returncode == 0, done.stderr
    assert "<svg" in svg.read_text() and "loop.py:20" in svg.read_text()


def test_python_dash_m_runs_the_same_command():
    import subprocess
    import sys

    from tests.cli.conftest import ROOT

    for module in ("autograph", "autograph.cli"):
        done = subprocess.run([sys.executable, "-m", module, "convert", str(FIXTURES / "syntax_error.py")],
                              capture_output=True, cwd=ROOT, check=False, timeout=60)
        assert done.returncode == 1
        assert b"syntax error" in done.stderr


def test_a_nested_function_asked_for_by_name_points_to_the_function_defining_it(cli, tmp_path):
    path = tmp_path / "nested.py"
    path.write_text(
        "class Model:\n"
        "    def call(self, x):\n"
        "        def step(y):\n"
        "            return y\n"
        "        return step(x)\n"
    )
    done = cli("convert", str(path), "-f", "Model.call.step", "-f", "Model.call.<locals>.step")
    err = done.stderr.decode()
    assert done.returncode == 1
    for name in ("Model.call.step", "Model.call.<locals>.step"):
        assert (f"{path}:3: {name!r} is defined inside 'Model.call', and a nested function is converted "
                f"with the function that defines it: pass --function Model.call") in err
