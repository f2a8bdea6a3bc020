"""`autograph export`: trace a function of a file and save it (saved graph here; ONNX in
tests/autograph/test_onnx_export.py)."""

import io
import subprocess
import sys
from pathlib import Path

import numpy as np

from autograph.cli import main

ROOT = Path(__file__).resolve().parents[2]

MODULE = '''\
import numpy as np

def step(x, n):
    s = 0.0
    for i in range(n):
        s += np.sum(x) * i
    return s
'''


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), None, out, err), out.getvalue(), err.getvalue()


def test_export_saved_loads_without_the_file(tmp_path):
    source = tmp_path / "model.py"
    source.write_text(MODULE)
    output = tmp_path / "saved_step"
    code, _, err = run("export", f"{source}:step", "--arg", "float32[None]", "--arg", "int64[]",
                       "--format", "saved", "--output", str(output))
    assert code == 0 and "wrote the saved graph" in err
    source.unlink()
    script = ("import numpy as np, sys; from runtime.backends.export import saved_read; "
              f"g = saved_read.read({str(output)!r}); print(g(np.float32([1, 2]), np.int64(3))); "
              "assert 'autograph' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == 9.0 == np.sum([1, 2]) * (0 + 1 + 2)


def test_export_staging_errors_exit_1_naming_the_line(tmp_path):
    source = tmp_path / "bad.py"
    source.write_text(MODULE.replace("s = 0.0", "s = np.float32(0)"))
    code, _, err = run("export", f"{source}:step", "--arg", "float32[None]", "--arg", "int64[]",
                       "--output", str(tmp_path / "out"))
    assert code == 1 and f"{source}:5" in err and err.startswith("autograph export: StagingError")


def test_export_help_says_it_imports_the_module(capsys):
    try:
        main(["export", "--help"])
    except SystemExit:
        pass
    assert "export IMPORTS the module" in capsys.readouterr().out
