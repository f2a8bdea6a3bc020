"""parsing: live functions (defs, methods, nested, lambdas) back to gast trees."""

import gast
import pytest

from autograph.source.parsing import parse_function
from runtime.ir.errors import ConversionError


class Holder:
    def method(self, x):
        return x


def outer():
    def inner(y):
        return y

    return inner


def test_def_method_and_nested():
    parsed = parse_function(Holder.method)
    assert isinstance(parsed.node, gast.FunctionDef)
    assert parsed.node.name == "method"
    assert parsed.indent == 4
    assert parsed.user_line(parsed.node.lineno) == Holder.method.__code__.co_firstlineno
    nested = parse_function(outer())
    assert nested.node.name == "inner"
    assert nested.indent == 4


def spaced():
    def inner(y):
        z = y

        return z

    return inner


def test_a_nested_def_keeps_its_blank_lines_so_lines_map_to_the_file():
    parsed = parse_function(spaced())
    ret = parsed.node.body[-1]
    assert isinstance(ret, gast.Return)
    assert parsed.user_line(ret.lineno) == spaced().__code__.co_firstlineno + 3


def test_lambda_found_by_line_and_arguments():
    pick = [lambda a: a, lambda b: b * 2]  # noqa: E731
    parsed = parse_function(pick[1])
    assert isinstance(parsed.node, gast.Lambda)
    assert parsed.node.args.args[0].id == "b"


def test_lambdas_with_the_same_arguments_on_one_line_are_told_apart_by_columns():
    """Their entry and exit instructions sit at column 0, outside either body: not evidence."""
    pick = [lambda x: x + 1, lambda x: x if x > 0 else 0]  # noqa: E731
    for fn, body in zip(pick, (gast.BinOp, gast.IfExp)):
        parsed = parse_function(fn)
        assert isinstance(parsed.node, gast.Lambda) and isinstance(parsed.node.body, body)


def test_no_source():
    with pytest.raises(ConversionError, match="'print'"):
        parse_function(print)


def test_block_end_by_indentation_is_the_def_span_or_does_not_parse():
    import ast

    from autograph.source.parsing import _dedent, _def_spans, block_end
    from tests.autograph.source.repository import python_files

    checked = 0
    paths = [path for folder in ("autograph", "bench", "runtime", "tests") for path in python_files(folder)]
    for path in paths:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        for first, last in _def_spans(ast.parse(text)).items():
            end = block_end(lines, first)
            if end is not None and end != last:
                with pytest.raises(SyntaxError):
                    ast.parse(_dedent(lines[first - 1 : end])[0])
            checked += end == last
    assert checked > 1000


def test_block_end_stops_at_the_next_statement_and_drops_trailing_comments():
    from autograph.source.parsing import block_end

    lines = ["class A:\n", "    @d\n", "    # note\n", "    def f(self):\n", "        x = 1\n", "        # done\n", "\n", "    y = 1\n"]
    assert block_end(lines, 2) == 5
    # a string reaching column 0 cuts the block short, and the cut does not parse
    lines = ["    def f(self):\n", '        x = """\n', "text\n", '"""\n', "    y = 1\n"]
    assert block_end(lines, 1) == 2
    assert block_end(["def f(): return 1\n", "g = 2\n"], 1) == 1
    assert block_end(["x = 1\n"], 1) is None


def _import_then_edit(tmp_path, name, before, after):
    """Import a module written to `tmp_path`, then rewrite its file (as an editor would)."""
    import importlib.util
    import linecache
    import textwrap

    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(before))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path.write_text(textwrap.dedent(after))
    linecache.checkcache(str(path))
    return module, str(path)


BEFORE = """
    def helper(x):
        return x

    def f(x):
        if x > 0:
            x = -x
        return x
"""


@pytest.mark.parametrize(
    "after",
    [
        BEFORE.replace("def f(x)", "def renamed(x)"),  # renamed in place
        "\n\n\n" + BEFORE,  # moved down: its old line is now helper's body
        BEFORE.replace("def helper(x):\n        return x\n", ""),  # moved up: its old line is in its body
        "def f(x):\n    return x\n",  # the file is now shorter than where f started
    ],
    ids=["renamed", "moved-down", "moved-up", "shortened"],
)
def test_a_def_moved_or_renamed_on_disk_since_import_is_a_clear_error(tmp_path, after):
    import autograph as ag

    module, path = _import_then_edit(tmp_path, "edited_module", BEFORE, after)
    with pytest.raises(ConversionError) as info:
        ag.convert(module.f)
    message = str(info.value)
    assert "changed on disk since it was imported" in message
    assert path in message and "'f'" in message
    assert "reload" in message and "restart" in message


def test_a_file_edited_below_the_def_still_converts(tmp_path):
    import autograph as ag

    module, _ = _import_then_edit(tmp_path, "edited_below", BEFORE, BEFORE + "\n\ndef added():\n    pass\n")
    assert ag.convert(module.f)(2) == -2
