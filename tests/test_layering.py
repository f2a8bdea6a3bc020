"""The dependency rules of DESIGN.md, checked on the source: one-way layers, no import cycles.

Every import counts, including those written inside functions (a lazy import
still ties two modules together). `runtime` is layered

    ir <- ops <- passes, tracing <- operators        ir, ops, passes <- backends

(operators sit on both passes and tracing: the gradient tape records a trace and transforms it)

and `autograph` sits on top of all of it: `runtime` never imports `autograph`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("runtime", "autograph")

# What each layer of `runtime` may import (besides the standard library and NumPy).
ALLOWED = {
    "ir": {"ir"},
    "ops": {"ir", "ops"},
    "passes": {"ir", "ops", "passes"},
    "tracing": {"ir", "ops", "tracing"},
    "backends": {"ir", "ops", "passes", "backends"},
    "operators": {"ir", "ops", "passes", "tracing", "operators"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module `name` refers to: itself, or the nearest enclosing package we own."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that runs: those under `if TYPE_CHECKING:` are for annotations only."""
    found = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Our modules that `module` imports anywhere in its file (module level or inside functions)."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            # `from package import submodule` imports the submodule
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            resolved = _resolve(target, modules)
            if resolved is not None and resolved != module:
                found.add(resolved)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "runtime" and len(parts) > 1 else None


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_runtime_never_imports_autograph():
    graph = import_graph()
    offenders = sorted(
        f"{m} -> {t}" for m, targets in graph.items() if m.startswith("runtime") for t in targets
        if t.split(".")[0] == "autograph"
    )
    assert offenders == []


def test_runtime_layers_import_one_way():
    graph = import_graph()
    offenders = []
    for module, targets in sorted(graph.items()):
        layer = layer_of(module)
        if layer is None:
            continue
        assert layer in ALLOWED, f"{module} is in no layer of DESIGN.md: put it in one of {sorted(ALLOWED)}"
        for target in sorted(targets):
            target_layer = layer_of(target)
            if target_layer is not None and target_layer not in ALLOWED[layer]:
                offenders.append(f"{module} ({layer}) imports {target} ({target_layer})")
    assert offenders == []


def test_no_module_is_too_long():
    long = sorted(
        f"{name}: {len(path.read_text(encoding='utf-8').splitlines())} lines"
        for name, path in all_modules().items()
        if len(path.read_text(encoding="utf-8").splitlines()) > 420
    )
    assert long == []
