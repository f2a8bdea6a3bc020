"""`autograph convert` on ordinary layouts and large or deep files: what it writes and refuses."""

from __future__ import annotations

import ast
import io
import time

import pytest

from autograph.cli import convert as convert_command
from autograph.cli import main
from autograph.cli.graph import node_count
from autograph.cli.module_output import _outermost
from tests.cli import fake_converter


def run(*argv: str):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), io.BytesIO(b""), out, err)
    return status, out.getvalue(), err.getvalue()


def _module(count: int) -> str:
    return "".join(f"def f{i}(x):\n    if x > {i}:\n        x = x - 1\n    return x\n\n\n" for i in range(count))


def test_a_helper_defined_before_the_autograph_import_imports(tmp_path):
    source = tmp_path / "helpers_first.py"
    source.write_text(
        "def helper(x):\n    if x > 0:\n        x = x - 1\n    return x\n\n\n"
        "import autograph as ag\n\n\n"
        "def later(x):\n    while x > 3:\n        x = x - 2\n    return x\n"
    )
    out = tmp_path / "converted.py"
    status, _, err = run("convert", "--all", str(source), "-o", str(out))
    assert status == 0, err
    written = out.read_text()
    namespace: dict = {}
    exec(compile(written, str(out), "exec"), namespace)  # no NameError: the marker's import comes first
    assert namespace["helper"](3) == 2 and namespace["later"](8) == 2
    assert getattr(namespace["helper"], "__autograph_do_not_convert__", None) or "do_not_convert" in written


def test_output_that_is_the_input_is_refused(tmp_path):
    source = tmp_path / "model.py"
    original = _module(2)
    source.write_text(original)
    status, _, err = run("convert", "--all", str(source), "-o", str(source))
    assert status == 2
    assert "would overwrite the input" in err and "--output" in err
    assert source.read_text() == original
    status, _, err = run("convert", "--all", str(source), "-o", str(tmp_path))  # the same file, as a directory
    assert status == 2 and source.read_text() == original


def test_output_grows_linearly_with_the_functions(tmp_path, monkeypatch):
    """2,000 functions: writing the module costs a small multiple of printing them, and 4 times
    the functions cost about 4 times as much (it took quadratic time, comparing every pair of
    functions, and rebuilt the line list per edit)."""
    monkeypatch.setattr(convert_command, "load_converter", lambda: _linear_fake)
    source, quarter = tmp_path / "many.py", tmp_path / "quarter.py"
    source.write_text(_module(2000))
    quarter.write_text(_module(500))
    out = tmp_path / "many_out.py"

    def timed(*argv: str) -> float:
        best = float("inf")
        for _ in range(5):  # the best of 5: the machine may be busy with other work
            started = time.perf_counter()
            status, _, err = run(*argv)
            best = min(best, time.perf_counter() - started)
            assert status == 0, err
        return best

    printing = timed("convert", "--all", str(source))
    writing = timed("convert", "--all", str(source), "-o", str(out))
    writing_quarter = timed("convert", "--all", str(quarter), "-o", str(tmp_path / "quarter_out.py"))
    # measured, with this converter of next to no cost: writing about 2 times printing (each
    # statement is parsed once more to place the edits); 4 times the functions, 4 times the
    # time (printing 0.1 s, writing 0.2 s; converting the file whole, 0.21 s and 0.37 s, and
    # comparing every pair of functions took minutes at 45,000).
    assert writing < 3 * printing + 0.05, (writing, printing)
    assert writing < 6 * writing_quarter + 0.05, (writing, writing_quarter)
    assert out.read_text().count(fake_converter.MARK) == 2000


def _linear_fake(source, filename, names=None, all_functions=False, *, first_line=1, static=None):
    """Every top-level def "converted" to a one-line body: a converter of linear cost."""
    return [
        fake_converter.FakeConverted(
            node.name, node.name, node.lineno + first_line - 1, f"def {node.name}(x):\n    return x  {fake_converter.MARK}\n"
        )
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
    ]


def test_outermost_drops_nested_functions_only():
    class Node:
        def __init__(self, lineno, end, decorators=()):
            self.lineno, self.end_lineno, self.col_offset = lineno, end, 0
            self.decorator_list = [type("D", (), {"lineno": d, "col_offset": 0})() for d in decorators]

    class Done:
        error, code = None, "def f(): pass"

    outer, inner, decorated, after = Node(1, 10), Node(3, 5), Node(13, 20, decorators=(11, 12)), Node(21, 22)
    pairs = [(outer, Done()), (inner, Done()), (decorated, Done()), (after, Done())]
    kept = [node for node, _ in _outermost(pairs)]
    assert kept == [outer, decorated, after]


@pytest.mark.parametrize(
    ("limit", "extra"), [("MAX_STREAMED_BYTES", ()), ("MAX_SOURCE_BYTES", ("--diff",))]
)
def test_too_large_a_file_is_refused_with_a_message(tmp_path, monkeypatch, limit, extra):
    """Printing and --output stream (a large limit); --diff and --stats hold the whole tree (a smaller one)."""
    monkeypatch.setattr(convert_command, limit, 1000)
    source = tmp_path / "big.py"
    source.write_text(_module(40))
    status, out, err = run("convert", "--all", str(source), *extra)
    assert status == 1 and out == ""
    assert err.startswith(f"{source}:1: the file is") and "Split the module" in err
    assert ("--diff or --stats" in err) == bool(extra)


def test_out_of_memory_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(convert_command, "load_converter", lambda: exhausted)
    source = tmp_path / "model.py"
    source.write_text(_module(2))
    status, _, err = run("convert", "--all", str(source))  # statement by statement: each names its line
    assert status == 1 and "Traceback" not in err
    assert err.splitlines()[0].startswith(f"{source}:1: out of memory converting the statement at this line")
    assert err.splitlines()[1].startswith(f"{source}:7: out of memory")
    status, _, err = run("convert", "--all", "--diff", str(source))  # the whole file at once
    assert status == 1 and err.startswith(f"{source}:1: out of memory converting this file")


def test_code_deeper_than_the_default_recursion_limit_parses_and_converts(tmp_path):
    source = tmp_path / "deep.py"
    source.write_text("def f(x):\n    return " + " + ".join(["x"] * 2500) + "\n")
    status, out, err = run("convert", "--all", str(source))
    assert status == 0, err
    assert out.count("+ x") == 2499


def test_nesting_python_itself_refuses_is_a_source_error(tmp_path):
    source = tmp_path / "too_deep.py"
    source.write_text("x = " + "(" * 150 + "1" + ")" * 150 + "\ny = " + "-" * 200_000 + "1\n")
    status, _, err = run("convert", "--all", str(source))
    assert status == 1
    assert err.startswith(f"{source}:") and "Traceback" not in err


@pytest.mark.parametrize("backend_nodes", [True])
def test_graph_counts_the_nodes_of_subgraphs(backend_nodes):
    import numpy as np

    import autograph as ag

    @ag.function
    def f(x):
        if x > 0:
            x = x * 2 + 1
        else:
            x = x - 3
        return x

    graph = f.get_concrete_function(ag.TensorSpec([], np.float32)).graph
    text = node_count(graph)
    top = len(graph.nodes)
    total = int(text.split()[0])
    assert total > top and f"{top} at the top level" in text and "in 2 subgraphs" in text
