"""The dependency rule: `runtime` never imports `autograph`."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_runtime_never_imports_autograph():
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "runtime").rglob("*.py")
        if any(m == "autograph" or m.startswith("autograph.") for m in imported_modules(path))
    ]
    assert offenders == []
