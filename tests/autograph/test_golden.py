"""Golden files: the converted code of each fixtures/golden/NAME.py, reviewed.

Each golden source defines a function named like its file and `INPUTS`, a
list of argument tuples. The test checks that `ag.to_code` still prints
exactly fixtures/golden/NAME.expected.py, and that the converted function
behaves like the original on every input. After a deliberate change to the
converter's output, regenerate with `make golden` and review the diff.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

import autograph as ag
from tests.autograph.differential import compare, run

__all__ = ["GOLDEN", "CASES", "expected_path", "update"]

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"
CASES = sorted(p.name[:-3] for p in GOLDEN.glob("*.py") if not p.name.endswith(".expected.py"))


def expected_path(name: str) -> Path:
    return GOLDEN / f"{name}.expected.py"


def load_case(name: str) -> ModuleType:
    """Import fixtures/golden/NAME.py as a module of its own."""
    module_name = f"golden_{name}"
    spec = importlib.util.spec_from_file_location(module_name, GOLDEN / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def converted_code(name: str) -> str:
    code = str(ag.to_code(getattr(load_case(name), name)))
    return code if code.endswith("\n") else code + "\n"


def test_there_are_enough_golden_files():
    assert len(CASES) >= 30
    for name in CASES:
        assert load_case(name).INPUTS, f"{name}.py needs at least one INPUTS entry"


@pytest.mark.parametrize("name", CASES)
def test_to_code_matches_expected(name):
    path = expected_path(name)
    assert path.exists(), f"{path} is missing: run `make golden` and review it"
    expected = path.read_text()
    actual = converted_code(name)
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"{name}.expected.py", "ag.to_code"))
        pytest.fail(f"ag.to_code output changed for {name}; if intended, run `make golden` "
                    f"and review the diff:\n{diff}", pytrace=False)


@pytest.mark.parametrize("name", CASES)
def test_converted_behaves_like_original(name):
    module = load_case(name)
    original = getattr(module, name)
    converted = ag.convert(original)
    for args in module.INPUTS:
        expected = run(original, args)
        actual = run(converted, args)
        difference = compare(expected, actual)
        assert difference is None, (
            f"{difference} for {name}{args!r}\n"
            f"  original:  {expected.describe()}\n  converted: {actual.describe()}"
        )


def update(names: list[str]) -> list[str]:
    """Rewrite the expected files of `names`; returns the ones that changed."""
    changed = []
    for name in names:
        path = expected_path(name)
        code = converted_code(name)
        if not path.exists() or path.read_text() != code:
            path.write_text(code)
            changed.append(name)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate fixtures/golden/*.expected.py")
    parser.add_argument("--update", action="store_true", help="write the expected files")
    parser.add_argument("names", nargs="*", help="golden names (default: all)")
    options = parser.parse_args(argv)
    names = options.names or CASES
    if not options.update:
        stale = [n for n in names
                 if not expected_path(n).exists() or expected_path(n).read_text() != converted_code(n)]
        print("\n".join(stale) or "all golden files are up to date")
        return 1 if stale else 0
    for name in update(names):
        print(f"updated {expected_path(name).relative_to(GOLDEN.parents[1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
