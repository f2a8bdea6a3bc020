"""The user guide and the API reference stay true: every public name is documented, and every
Python example in docs/guide.md and docs/api.md runs.

Each page's ```python blocks run in order in one namespace, as a reader pasting them into one
session would (a doctest without the output checks: examples assert what they claim). Each block
is written to a file first, because the converter reads a function's source. Blocks run in a
temporary directory, so examples that write files leave nothing behind. ```python-norun blocks
(command lines, examples that need a file layout) are not run. A block that uses JAX or ONNX is
skipped only when that package is not installed (make test installs both).
"""

from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path

import pytest

import autograph as ag

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^```([\w-]*)\s*$")

# The submodules `autograph` exports, documented member by member.
SUBMODULES = ("errors", "saved_model", "onnx", "random")

# The public methods and properties of the classes users hold, as API.md lists them.
MEMBERS = {
    "Function": (
        "get_concrete_function",
        "pretty_printed_concrete_signatures",
        "python_function",
        "experimental_get_tracing_count",
        "experimental_get_tracing_history",
    ),
    "ConcreteFunction": (
        "graph",
        "backend",
        "structured_input_signature",
        "structured_outputs",
    ),
    "Tensor": ("shape", "dtype", "name", "ndim", "astype", "reshape"),
    "Variable": ("assign", "assign_add", "assign_sub", "numpy", "read_value", "shape", "dtype"),
    "TensorArray": (
        "write",
        "read",
        "stack",
        "unstack",
        "size",
        "gather",
        "scatter",
        "concat",
        "split",
    ),
    "GradientTape": ("watch", "gradient", "watched_variables", "stop_recording"),
}


def code_blocks(page: Path) -> list[tuple[str, int, str]]:
    """(info string, first line number, text) of every fenced block of a Markdown page."""
    blocks: list[tuple[str, int, str]] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        start, body = i + 2, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        assert i < len(lines), f"{page.name}:{start - 1}: code block is never closed"
        blocks.append((match.group(1), start, "\n".join(body) + "\n"))
        i += 1
    return blocks


def missing_package(text: str) -> str | None:
    """The optional package a block needs and this environment lacks, if any."""
    needs = []
    if re.search(r"jit_compile=True|backend=\"jax\"|import jax|lowered_text", text):
        needs.append("jax")
    if re.search(r"ag\.onnx\.|import onnx", text):
        needs += ["onnx", "onnxruntime"]
    return next((name for name in needs if importlib.util.find_spec(name) is None), None)


def api_entries() -> set[str]:
    """The names documented by a heading of docs/api.md, e.g. `ag.function` or `Variable.assign`."""
    entries = set()
    for line in (DOCS / "api.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            entries.update(re.findall(r"`([\w.]+)", line))
    return entries


def test_every_public_name_has_an_entry_in_the_api_reference() -> None:
    entries = api_entries()
    names = [f"ag.{name}" for name in ag.__all__]
    for module in SUBMODULES:
        names += [f"ag.{module}.{name}" for name in getattr(ag, module).__all__]
    names += [f"{cls}.{member}" for cls, members in MEMBERS.items() for member in members]
    missing = [name for name in names if name not in entries]
    assert not missing, f"docs/api.md has no heading for: {', '.join(missing)}"


def test_documented_members_exist() -> None:
    """The reference documents no method the classes lack (names change; the page must follow)."""
    from autograph.tracing.concrete import ConcreteFunction
    from autograph.tracing.function import Function

    classes = {
        "Function": Function,
        "ConcreteFunction": ConcreteFunction,
        "Tensor": ag.Tensor,
        "Variable": ag.Variable,
        "TensorArray": ag.TensorArray,
        "GradientTape": ag.GradientTape,
    }
    instance_attributes = {"ConcreteFunction": {"graph", "backend", "name"}}
    for entry in api_entries():
        cls, _, member = entry.partition(".")
        if cls in classes and member:
            known = instance_attributes.get(cls, set())
            assert member in known or hasattr(classes[cls], member), f"{entry} is not in the code"


@pytest.mark.parametrize("page", ["guide.md", "api.md"])
def test_python_examples_run(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = [(line, text) for info, line, text in code_blocks(DOCS / page) if info == "python"]
    assert blocks, f"docs/{page} has no python examples"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{Path(page).stem}"}
    try:
        for line, text in blocks:
            if missing_package(text) is not None:
                continue
            source = tmp_path / f"{Path(page).stem}_line{line}.py"
            source.write_text(text, encoding="utf-8")
            with warnings.catch_warnings():
                warnings.simplefilter("default")  # as in a user's session: shown, not raised
                try:
                    exec(compile(text, str(source), "exec"), namespace)
                except Exception as exc:
                    raise AssertionError(f"docs/{page}: the example at line {line} failed") from exc
    finally:
        ag.run_functions_eagerly(False)


def test_code_block_kinds_are_known() -> None:
    """A typo in an info string (```pyton) would silently stop an example from running."""
    known = {"python", "python-norun", "sh", "text", ""}
    for page in ("guide.md", "api.md"):
        for info, line, _ in code_blocks(DOCS / page):
            assert info in known, f"docs/{page}:{line}: unknown code block kind {info!r}"

