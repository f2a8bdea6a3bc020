"""The export modules are a backend: they import the IR, the ops and the compiler, never the
tracing layer, the operators or the converter (the loader must run without them)."""

from pathlib import Path

from tests.test_layering import imported_modules

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = ("runtime.graph", "runtime.types", "runtime.errors", "runtime.origin", "runtime.structure",
           "runtime.ops", "runtime.compile", "runtime.optimize", "runtime.backends.export")


def test_export_modules_import_only_ir_ops_and_the_compiler():
    paths = list((ROOT / "runtime" / "backends" / "export").glob("*.py"))
    assert {p.name for p in paths} >= {"saved.py", "loaded.py", "to_onnx.py"}
    for path in paths:
        ours = {m for m in imported_modules(path) if m.split(".")[0] in ("runtime", "autograph")}
        for module in ours:
            assert any(module == a or module.startswith(a + ".") for a in ALLOWED), (path.name, module)
