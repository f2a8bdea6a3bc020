"""The XLA backend runs a Graph: it imports the IR, the ops, the passes and JAX, nothing else.

The layer rule of the runtime (a backend never imports tracing, operators or
autograph), and JAX imported only inside functions, so `import autograph`
works without it.
"""

import ast
from pathlib import Path

BACKEND = Path(__file__).resolve().parents[4] / "runtime" / "backends" / "jax"
ALLOWED_RUNTIME = ("runtime.ir.graph", "runtime.ir.types", "runtime.ir.errors", "runtime.ir.origin", "runtime.ir.structure",
                   "runtime.ops", "runtime.passes", "runtime.backends.jax", "runtime.ir", "runtime.passes")
STANDARD = {"__future__", "collections", "collections.abc", "logging", "re", "sys", "typing", "weakref"}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module, imported at the top level) for every import of `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, id(node) in top))
    return found


def test_the_backend_imports_only_its_layers_and_jax_lazily():
    files = sorted(BACKEND.glob("*.py"))
    assert files
    for path in files:
        for module, at_top in _imports(path):
            root = module.split(".")[0]
            if root in ("jax", "jaxlib"):
                assert not at_top, f"{path.name} imports {module} at import time"
            elif root == "runtime":
                assert module.startswith(ALLOWED_RUNTIME), f"{path.name} imports {module}"
            else:
                assert root == "numpy" or module in STANDARD, f"{path.name} imports {module}"
