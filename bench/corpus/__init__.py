"""The functions every benchmark runs, shared by this project and TensorFlow.

- scalar_code.py, array_code.py, solver_code.py: realistic numerical Python
  (plain Python and NumPy), together the conversion corpus
  (`load_numerics()`), also used by the converter's tests through their `CASES`.
- inputs.py: the inputs, built once from fixed seeds, the same for all sides.
- handwritten.py: the limit, hand-written Python/NumPy loops.
- staged.py, guide.py: the staged examples written for `autograph`;
  staged_tf.py, guide_tf.py: the same written for TensorFlow.

`load_fresh(name)` executes a copy of a corpus module under a new file name,
shifted down by a different number of blank lines each time, so its functions
are new objects whose code objects differ from every earlier copy (code
objects compare by contents and first line number, not by file, and
TensorFlow's conversion cache is keyed on them): no conversion cache answers.
"""

from __future__ import annotations

import atexit
import importlib.util
import itertools
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType, SimpleNamespace

__all__ = ["CORPUS_DIR", "NUMERICS", "load_fresh", "load_numerics"]

CORPUS_DIR = Path(__file__).resolve().parent
NUMERICS = ("scalar_code", "array_code", "solver_code")
_counter = itertools.count()
_copies: list[Path] = []


def _copy_dir() -> Path:
    if not _copies:
        _copies.append(Path(tempfile.mkdtemp(prefix="bench-corpus-")))
        atexit.register(shutil.rmtree, _copies[0], True)
    return _copies[0]


def load_fresh(name: str) -> ModuleType:
    """Execute a fresh copy of bench/corpus/<name>.py as a new module object."""
    number = next(_counter)
    path = _copy_dir() / f"{name}_{number}.py"
    source = (CORPUS_DIR / f"{name}.py").read_text(encoding="utf-8")
    path.write_text("\n" * number + source, encoding="utf-8")
    module_name = f"bench_corpus_{name}_{number}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None, f"cannot load {path}"
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def load_numerics() -> SimpleNamespace:
    """Fresh copies of the whole numerics corpus, as one namespace with one `CASES`."""
    merged: dict = {}
    cases: dict = {}
    for name in NUMERICS:
        module = load_fresh(name)
        merged.update(vars(module))
        cases.update(module.CASES)
    merged["CASES"] = cases
    return SimpleNamespace(**merged)
