"""`autograph convert` statement by statement: the same output as converting the whole file at once,
memory that does not grow with the file, errors at the file's lines, --output written atomically."""

from __future__ import annotations

import ast
import io
import textwrap
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograph.cli import convert as convert_command
from autograph.cli import main
from autograph.cli.module_index import _parts
from autograph.cli.source_file import parse_source
from autograph.cli.statements import Lines, split_statements, statement_end
from autograph.source.deep import run_deep


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), io.BytesIO(b""), out, err)
    return status, out.getvalue(), err.getvalue()


def run_whole(monkeypatch, *argv: str) -> tuple[int, str, str]:
    """`run`, converting each file whole (the path --diff and --stats take)."""
    with monkeypatch.context() as patch:
        patch.setattr(convert_command, "_prepare", lambda source, options: parse_source(source) and None)
        return run(*argv)


# top-level statements that a column-0 scan may split wrongly, each valid on its own
SNIPPETS = [
    '"""Module doc.\n\nUsage: text in column 0\ndef not_a_def():\n"""\n',
    "import numpy as np\n",
    "import autograph as ag\n",
    "@ag.function\ndef decorated(x):\n    if x > 0:\n        x = x - 1\n    return x\n",
    "@ag.function(\n    reduce_retracing=True,\n)\n@staticmethod\ndef stacked(x):\n    return x\n",
    "if True:\n    A = 1\nelif False:\n    A = 2\nelse:\n    A = 3\n",
    "try:\n    B = 1\nexcept ImportError:\n    B = 2\nfinally:\n    C = 3\n",
    "try:\n    pass\nexcept* OSError:\n    pass\n",
    "class Model:\n    scale = 2\n\n    def call(self, x):\n        while x > 3:\n            x = x - self.scale\n        return x\n",
    "TEXT = '''\ndef inside_a_string(x):\n    return x\n'''\n",
    "DATA = [\n1,\nvalue_in_column_0,\n]\n",
    "total = 1 + \\\n    2\n",
    "first = 1; second = 2\n",
    "# a comment\n\n\n",
    "(a, b) = 1, 2\n",
    "'a string statement'\n",
    "async def coroutine(x):\n    return x\n",
    "def gen(n):\n    for i in range(n):\n        yield i\n",
    "def plain(x):\n    for i in range(3):\n        if x > i:\n            x = x - i\n    return x\n",
    "for elsewhere in range(2):\n    pass\nelse:\n    pass\n",
    "NOTE = '''\n@not_a_decorator\n'''\n",
    "match LIMIT:\n    case 1:\n        pass\n    case _:\n        pass\n",
    "with open(__file__) as handle:\n    pass\n",
    "\u00e9t\u00e9 = 1\n",
    "\x0c\ndef after_form_feed():\n    pass\n",
    "@dataclass\nclass Point:\n    x: int = 0\n",
    "lambda_ = lambda x: (x,\ny_in_column_0)\n",
]


def _whole_statements(text: str) -> list[tuple[int, int, str]]:
    return [(node.lineno, node.end_lineno, ast.dump(node)) for node in ast.parse(text).body]


def _streamed_statements(text: str) -> list[tuple[int, int, str]]:
    found = []
    for first, _, _, tree in _parts("m.py", Lines(text)):
        found += [(n.lineno + first - 1, n.end_lineno + first - 1, ast.dump(n)) for n in tree.body]
    return found


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=12), st.sampled_from(["", "\n", "\n\n# end\n"]))
def test_statements_found_piecewise_are_the_modules(snippets, gap):
    text = gap.join(snippets)
    assert _streamed_statements(text) == _whole_statements(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=10))
def test_the_tokenizer_split_ends_where_the_parser_does(snippets):
    text = "".join(snippets)
    lines = Lines(text)
    ends = {node.end_lineno for node in ast.parse(text).body}
    statements = list(split_statements(io.StringIO(text).readline))
    assert {s.end for s in statements} <= ends
    for statement in statements:
        assert statement_end(lines, statement.start) == statement.end


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=8))
def test_any_layout_converts_as_the_whole_file_does(tmp_path_factory, snippets):
    """Differential: printing and --output of modules made of the snippets, streamed and whole."""
    folder = tmp_path_factory.mktemp("layout")
    source = folder / "module.py"
    source.write_text("".join(snippets))
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert run("convert", "--all", str(source)) == run_whole(monkeypatch, "convert", "--all", str(source))
        streamed = run("convert", "--all", str(source), "-o", str(folder / "out.py"))
        first = (folder / "out.py").read_text()
        whole = run_whole(monkeypatch, "convert", "--all", str(source), "-o", str(folder / "out.py"))
        assert streamed == whole and first == (folder / "out.py").read_text()


MODULE = textwrap.dedent('''\
    """A module to convert: helpers before the autograph import, classes, a generator, a failure."""
    import numpy as np


    def helper(x):
        while x > 3:
            x = x - 2
        return x


    import autograph as ag
    from autograph import function as stage

    LIMIT = 3


    @ag.function
    def decorated(x):
        if x > LIMIT:
            x = helper(x)
        return x


    @stage(reduce_retracing=True)
    def staged(x):
        return np.abs(x) if x < 0 else x


    class Model:
        """Doc."""

        def call(self, x):
            for i in range(3):
                if x > i:
                    x = x - i
            return x

        @staticmethod
        def twice(x):
            def inner(y):
                return y * 2
            return inner(x)


    def gen(n):
        for i in range(n):
            yield i


    def refused(x):
        try:
            pass
        except* ValueError:
            pass
        while x > 0:
            return x
        return x


    def last(x):
        if x:
            return 1
        return 2''')  # no line break at the end


@pytest.mark.parametrize(
    "args",
    [
        ["--all"],
        [],
        ["--all", "--check"],
        ["--function", "last", "--function", "Model.call", "--function", "Model", "--function", "twice.inner"],
        ["--function", "nothing_here"],
    ],
)
def test_printing_is_what_converting_the_whole_file_prints(tmp_path, monkeypatch, args):
    source = tmp_path / "module.py"
    source.write_text(MODULE)
    streamed = run("convert", *args, str(source))
    whole = run_whole(monkeypatch, "convert", *args, str(source))
    assert streamed == whole
    assert streamed[1] or "--check" in args or "nothing_here" in args


@pytest.mark.parametrize(
    "layout",
    [
        "module", "helpers_only", "import_late", "decorated_only", "empty", "comments_first", "defined_twice",
        "form_feed", "semicolons", "future_semicolon",
    ],
)
def test_the_output_module_is_what_converting_the_whole_file_writes(tmp_path, monkeypatch, layout):
    text = {
        "module": MODULE,
        "helpers_only": "def a(x):\n    if x:\n        x = 1\n    return x\n\n\ndef do_not_convert(x):\n    return x\n",
        "import_late": '"""Doc."""\nfrom __future__ import annotations\n\n\ndef a(x):\n    return x\n\n\nimport autograph as ag\n',
        "decorated_only": "import autograph as ag\n\n\n@ag.function\ndef a(x):\n    while x > 1:\n        x = x - 1\n    return x\n",
        "empty": "# nothing but a comment\n",
        "comments_first": "#!/usr/bin/env python\n# comment\n\ndef a(x):\n    if x:\n        x = 1\n    return x\n",
        "defined_twice": "def a(x):\n    if x:\n        x = 1\n    return x\n\n\ndef a(x):\n    while x:\n        x = x - 1\n    return x\n",
        "form_feed": "\x0c\ndef a(x):\n    if x:\n        x = 1\n    return x\n",
        "semicolons": "import os; import autograph as ag\n@ag.function\ndef a(x):\n    return x\nb = 1; c = 2\n",
        # the header goes after the statement that shares the __future__ import's line
        "future_semicolon": "from __future__ import annotations; import os\nimport autograph as ag\n\n\n"
        "@ag.function\ndef a(x):\n    if x:\n        x = 1\n    return x\n",
    }[layout]
    source = tmp_path / "module.py"
    source.write_text(text)
    for args in (["--all"], []):
        streamed_status, _, streamed_err = run("convert", *args, str(source), "-o", str(tmp_path / "streamed.py"))
        whole_status, _, whole_err = run_whole(monkeypatch, "convert", *args, str(source), "-o", str(tmp_path / "whole.py"))
        assert streamed_status == whole_status
        assert streamed_err.replace("streamed.py", "X") == whole_err.replace("whole.py", "X")
        written = (tmp_path / "streamed.py").read_text()
        assert written == (tmp_path / "whole.py").read_text()
        compile(written, "streamed.py", "exec")
        if layout == "defined_twice" and args:  # each def replaced where it stands (both were left as written)
            assert written.count("@do_not_convert\ndef a(x):") == 2 and "ag__." in written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["module.py", "streamed.py", "whole.py"]  # no temporary files


def _many(count: int) -> str:
    return "import numpy as np\n\n\n" + "".join(
        f"def f{i}(x):\n    while x > {i % 7}:\n        x = x - 1\n    if x > 3:\n        x = x * 2\n"
        f"    else:\n        x = np.abs(x)\n    return x\n\n\n"
        for i in range(count)
    )


class _Discard(io.TextIOBase):
    """stdout that keeps nothing: the printed code is not the converter's memory."""

    def write(self, text: str) -> int:
        return len(text)


def _peak_bytes(path, *extra: str) -> int:
    """The most memory Python held while `convert --all` ran (tracemalloc: every thread)."""
    tracemalloc.start()
    try:
        status = main(["convert", "--all", str(path), *extra], io.BytesIO(b""), _Discard(), _Discard())
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        assert status == 0


@pytest.mark.parametrize("extra", [(), ("--output",)])
def test_memory_does_not_grow_with_the_number_of_functions(tmp_path, extra):
    """4 times the functions, about the same peak: the trees of one function at a time, not the file's."""
    warm, small, large = tmp_path / "warm.py", tmp_path / "small.py", tmp_path / "large.py"
    warm.write_text(_many(3))
    small.write_text(_many(100))
    large.write_text(_many(400))
    output = lambda name: ("-o", str(tmp_path / name)) if extra else ()  # noqa: E731
    _peak_bytes(warm, *output("warm_out.py"))  # the converter's modules and caches, before measuring
    peak_small = _peak_bytes(small, *output("small_out.py"))
    peak_large = _peak_bytes(large, *output("large_out.py"))
    added = len(large.read_text()) - len(small.read_text())
    # measured: the peak grows by ~3 bytes per byte of source (the text, its line index, the
    # module's names: 180 KB -> 310 KB here), where converting the whole file at once it grew
    # by ~210 (4 MB -> 16 MB: about 4 times)
    assert peak_large < 2 * peak_small, (peak_small, peak_large)
    assert peak_large - peak_small < 5 * added, (peak_small, peak_large, added)


def test_a_late_function_fails_at_its_own_line(tmp_path):
    source = tmp_path / "late.py"
    before = "import autograph as ag\n" + _many(300)
    source.write_text(before + "@ag.function\ndef bad(x):\n    while x > 0:\n        yield x\n")
    def_line = before.count("\n") + 2
    status, out, err = run("convert", "--all", str(source))
    assert status == 1
    assert out.count("\n# ") == 299  # the others are converted, each under its header
    assert err.startswith(f"{source}:{def_line}: cannot convert 'bad'"), err
    assert f"{source}:{def_line + 2}" in err  # the yield's line, shown with its text


@pytest.mark.parametrize(
    ("error", "line"),  # the error, and the line of it that the message names
    [
        ("x = (1,\n", 1),
        ("x = 1 +* 2\n", 1),
        ("def f(:\n    pass\n", 1),
        ("x = 1\n  y = 2\n", 2),
        ("def f():\nreturn 1\n", 2),
        ("x = '''open\n", 1),
    ],
)
def test_a_syntax_error_late_in_the_file_is_reported_as_for_the_whole_file(tmp_path, monkeypatch, error, line):
    source = tmp_path / "broken.py"
    source.write_text(_many(200) + error + _many(3))
    with monkeypatch.context() as patch:  # found statement by statement: the file is never parsed whole
        patch.setattr(convert_command, "parse_source", None)
        streamed = run("convert", "--all", str(source))
    whole = run_whole(monkeypatch, "convert", "--all", str(source))
    assert streamed == whole
    status, out, err = streamed
    assert status == 1 and out == "" and "Traceback" not in err
    assert err.startswith(f"{source}:{_many(200).count(chr(10)) + line}: syntax error"), err


def test_an_interrupted_output_leaves_the_target_as_it_was(tmp_path, monkeypatch):
    from autograph.pipeline import convert_source

    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:
            raise RuntimeError("disk full, say")
        return convert_source(*args, **kwargs)

    monkeypatch.setattr(convert_command, "load_converter", lambda: failing)
    source, target = tmp_path / "module.py", tmp_path / "out.py"
    source.write_text(_many(10))
    target.write_text("previous\n")
    with pytest.raises(RuntimeError):
        run_deep(lambda: convert_command._run_convert(
            convert_command.ConvertOptions([str(source)], all_functions=True, output=str(target)),
            None, io.StringIO(), io.StringIO(),
        ))
    assert target.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["module.py", "out.py"]


def test_a_file_the_tokenizer_refuses_is_reported_by_the_parser(tmp_path):
    source = tmp_path / "tabs.py"
    source.write_text("def f(x):\n\tif x:\n        return 1\n\treturn 2\n")  # tabs and spaces mixed
    status, out, err = run("convert", "--all", str(source))
    assert status == 1 and out == ""
    assert err.startswith(f"{source}:") and "Traceback" not in err


def test_the_output_gets_the_permissions_writing_in_place_would_give(tmp_path):
    source = tmp_path / "module.py"
    source.write_text(_many(2))
    plain = tmp_path / "plain.py"
    plain.write_text("")  # a new file, as open() makes it
    status, _, err = run("convert", "--all", str(source), "-o", str(tmp_path / "new.py"))
    assert status == 0, err
    assert (tmp_path / "new.py").stat().st_mode == plain.stat().st_mode
    existing = tmp_path / "existing.py"
    existing.write_text("old\n")
    existing.chmod(0o640)
    status, _, err = run("convert", "--all", str(source), "-o", str(existing))
    assert status == 0, err
    assert existing.stat().st_mode & 0o777 == 0o640 and "def f1" in existing.read_text()


def test_an_output_that_cannot_be_written_is_a_message(tmp_path):
    source = tmp_path / "module.py"
    source.write_text(_many(2))
    target = tmp_path / "missing" / "out.py"
    status, _, err = run("convert", "--all", str(source), "-o", str(target))
    assert status == 1 and "Traceback" not in err
    assert err.startswith(f"{target}: cannot write the converted module: No such file or directory")


def test_a_part_too_deep_to_parse_is_reported_at_its_own_line():
    """A top-level statement from line 40 that Python's parser runs out of memory on: the error
    names line 40 of the file, not line 1 of the part."""
    from autograph.pipeline import convert_source
    from runtime.ir.errors import ConversionError

    part = "def f():\n    return " + "-" * 100_000 + "1\n"
    with pytest.raises(ConversionError) as caught:
        convert_source(part, "big.py", all_functions=True, first_line=40)
    assert "big.py:40" in str(caught.value) and "nested too deeply" in str(caught.value)


def test_a_syntax_error_in_a_part_is_reported_at_the_files_line():
    from autograph.pipeline import convert_source
    from runtime.ir.errors import ConversionError

    with pytest.raises(ConversionError) as caught:
        convert_source("def f():\n    return )\n", "part.py", all_functions=True, first_line=70)
    assert "part.py:71" in str(caught.value)
