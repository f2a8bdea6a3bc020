"""`autograph convert` and `autograph graph` end to end: the console script, the real converter."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.cli.conftest import FIXTURES, ROOT

DECORATED = FIXTURES / "decorated.py"


def test_converts_the_decorated_functions_only(cli):
    done = cli("convert", str(DECORATED))
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    for name in ("clip_sum", "countdown", "sign", "Scaler.scale"):
        assert f": {name}\n" in out
    assert "ag__." in out
    assert "def helper" not in out and "\x1b[" not in out


def test_generator_fails_with_file_line_and_exit_1(cli):
    path = FIXTURES / "generator.py"
    done = cli("convert", str(path))
    assert done.returncode == 1
    assert "def fine(x):" in done.stdout.decode()
    errors = done.stderr.decode().strip().splitlines()
    assert errors[0].startswith(f"{path}:1"), errors
    assert "yield" in errors[0] or "generator" in errors[0]
    check = cli("convert", str(path), "--check")
    assert check.returncode == 1
    assert check.stdout.decode().startswith(f"{path}:1")


def test_all_keeps_an_undecorated_generator_as_written_and_exits_0(cli, tmp_path):
    path = tmp_path / "gen.py"
    path.write_text("def gen(n):\n    for i in range(n):\n        yield i\n\n\ndef f(x):\n    if x > 0:\n        x = x - 1\n    return x\n")
    out = tmp_path / "out.py"
    done = cli("convert", "--all", str(path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    errors = done.stderr.decode()
    assert f"{path}:1: kept 'gen' as written: it is a generator" in errors
    assert "cannot convert" not in errors and f"wrote {out}" in errors
    written = out.read_text()
    assert "        yield i\n" in written and "ag__.if_stmt(" in written
    named = cli("convert", "-f", "gen", str(path))
    assert named.returncode == 1 and "yield" in named.stderr.decode()


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is Python 3.11's")
def test_all_keeps_a_function_with_except_star_as_written(cli, tmp_path):
    path = tmp_path / "star.py"
    path.write_text("def g(n):\n    try:\n        n = 1 // n\n    except* ZeroDivisionError:\n        n = 0\n"
                    "    return n\n\n\ndef f(x):\n    if x > 0:\n        x = x - 1\n    return x\n")
    out = tmp_path / "out.py"
    done = cli("convert", "--all", str(path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert f"{path}:1: kept 'g' as written: it is a function with try/except*" in done.stderr.decode()
    assert "    except* ZeroDivisionError:\n" in out.read_text() and "ag__.if_stmt(" in out.read_text()
    named = cli("convert", "-f", "g", str(path))
    assert named.returncode == 1 and "it uses `try/except*`" in named.stderr.decode()


def test_convert_never_imports_the_file(cli, tmp_path):
    sentinel = tmp_path / "sentinel.txt"
    sentinel.write_text("still here")
    env = {"AUTOGRAPH_SENTINEL": str(sentinel)}
    path = FIXTURES / "dangerous.py"
    done = cli("convert", str(path), env=env)
    assert done.returncode == 0, done.stderr
    assert b"def halve_until_small(x):" in done.stdout
    assert sentinel.read_text() == "still here"
    done = cli("convert", str(path), "--all", "--diff", "-o", str(tmp_path / "out.py"), env=env)
    assert done.returncode == 0, done.stderr
    assert sentinel.read_text() == "still here"
    # The fixture really is dangerous: importing it removes the sentinel.
    imported = subprocess.run(
        [sys.executable, "-c", "import runpy, sys; runpy.run_path(sys.argv[1])", str(path)],
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)}, capture_output=True, check=False,
    )
    assert imported.returncode != 0 and not sentinel.exists()


def test_latin1_source_and_stdin(cli):
    path = FIXTURES / "latin1.py"
    done = cli("convert", str(path))
    assert done.returncode == 0, done.stderr
    assert "café" in done.stdout.decode()
    piped = cli("convert", "-", stdin=path.read_bytes())
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == done.stdout


_COMPARE = """
import importlib.util, sys
import numpy as np

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

original, converted = load("original", sys.argv[1]), load("converted", sys.argv[2])
for (f, args), (g, _) in zip(original.EXAMPLES, converted.EXAMPLES):
    a, b = f(*args), g(*args)
    assert np.array_equal(a, b), (f, a, b)
    print(getattr(f, "__name__", f), a)
scale = converted.Scaler(2.0).scale
assert scale(np.float64(30.0)) == original.Scaler(2.0).scale(np.float64(30.0))
"""


def test_output_module_runs_like_the_original(cli, tmp_path):
    target = tmp_path / "converted_module.py"
    done = cli("convert", str(DECORATED), "--all", "--output", str(target))
    assert done.returncode == 0, done.stderr
    text = target.read_text()
    assert "from autograph.converted_call import AG as ag__" in text
    assert "@ag.function(autograph=False)" in text
    assert "@ag.do_not_convert\ndef helper(x):" in text
    compare = tmp_path / "compare.py"
    compare.write_text(_COMPARE)
    ran = subprocess.run(
        [sys.executable, str(compare), str(DECORATED), str(target)],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, check=False, timeout=120,
    )
    assert ran.returncode == 0, ran.stderr.decode()
    assert ran.stdout.decode().count("\n") == 4


def test_graph_of_a_converted_while_loop(cli, tmp_path):
    spec = f"{FIXTURES / 'loop.py'}:shrink"
    done = cli("graph", spec, "--arg", "float32[None,3]", "--arg", "float32[]")
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode()
    assert 'label="x\\nfloat32[None, 3]"' in text
    assert "subgraph cluster_" in text and re.search(r'label="while[^"]*: body"', text)
    assert "loop.py:12  x = np.tanh(x)" in text
    assert 'label="tanh\\nfloat32[None, 3]"' in text
    if shutil.which("dot") is not None:
        svg = tmp_path / "shrink.svg"
        assert cli("graph", spec, "--arg", "float32[None,3]", "--arg", "float32[]",
                   "-o", str(svg)).returncode == 0
        content = svg.read_text()
        assert "<svg" in content and "loop.py:12" in content and ": body</text>" in content


def _run_on_terminal(*args: str, env: dict) -> tuple[bytes, bytes]:
    """Run the console script with stdout and stderr on two pseudo-terminals."""
    import pty

    from tests.cli.conftest import SCRIPT

    out_master, out_slave = pty.openpty()
    err_master, err_slave = pty.openpty()
    with subprocess.Popen([str(SCRIPT), *args], stdout=out_slave, stderr=err_slave, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env}) as process:
        os.close(out_slave)
        os.close(err_slave)
        out, err = _drain(out_master), _drain(err_master)
        process.wait(timeout=60)
    return out, err


def _drain(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def test_terminal_gets_colour_and_progress_unless_no_color():
    files = [str(DECORATED), str(FIXTURES / "loop.py")]
    out, err = _run_on_terminal("convert", *files, env={"NO_COLOR": ""})
    assert b"\x1b[" in out and b"clip_sum" in out
    assert b"[2/2] " + files[1].encode() in err
    out, _ = _run_on_terminal("convert", *files, env={"NO_COLOR": "1"})
    assert b"\x1b[" not in out and b"def clip_sum(x):" in out


_COMPARE_GOLDEN = """
import contextlib, importlib.util, io, pathlib, sys

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

def outcome(function, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = repr(function(*args))
        except Exception as error:
            result = f"{type(error).__name__}: {error}"
    return result, out.getvalue()

import autograph as ag

checked = 0
for converted_path in sorted(pathlib.Path(sys.argv[2]).glob("*.py")):
    stem = converted_path.stem
    original = load(pathlib.Path(sys.argv[1]) / converted_path.name, "original_" + stem)
    converted = load(converted_path, "converted_" + stem)
    assert "ag__" in converted_path.read_text(), stem
    for args in original.INPUTS:
        got = outcome(getattr(converted, stem), args)
        assert got == outcome(ag.convert(getattr(original, stem)), args), (stem, args)
        checked += 1
print(checked)
"""


def test_output_modules_of_the_golden_sources_run_like_live_conversion(cli, tmp_path):
    """The written module behaves exactly as converting the original live (`ag.convert`):
    the CLI adds nothing of its own. That conversion matches the original is
    what tests/autograph/test_golden.py checks on these same files."""
    golden = ROOT / "fixtures" / "golden"
    files = sorted(str(p) for p in golden.glob("*.py") if "." not in p.stem)  # not *.expected.py
    done = cli("convert", "--all", "--output", str(tmp_path / "out"), *files)
    assert done.returncode == 0, done.stderr.decode()
    compare = tmp_path / "compare.py"
    compare.write_text(_COMPARE_GOLDEN)
    ran = subprocess.run(
        [sys.executable, str(compare), str(golden), str(tmp_path / "out")],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, check=False, timeout=120,
    )
    assert ran.returncode == 0, ran.stderr.decode()[-3000:]
    assert int(ran.stdout) >= len(files)
