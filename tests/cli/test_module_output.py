"""The importable module `convert --output` writes, built from a stand-in converter."""

from __future__ import annotations

import ast
import textwrap

from autograph.cli.module_output import NAMESPACE_IMPORT, build_module, our_decorator_names
from tests.cli.fake_converter import MARK, convert_source


def build(source: str, **kwargs) -> str:
    source = textwrap.dedent(source)
    results = convert_source(source, "m.py", **kwargs)
    return build_module(ast.parse(source), source, results)


def test_decorators_however_imported_are_recognised():
    tree = ast.parse("import autograph as ag\nimport autograph\nfrom autograph import function as f\n")
    assert our_decorator_names(tree) == ({"f"}, {"ag", "autograph"})


def test_decorated_function_keeps_decorator_without_autograph():
    out = build('''
        """Doc."""
        from __future__ import annotations
        import autograph as ag

        @ag.function
        def f(x):
            return x
    ''')
    lines = out.splitlines()
    assert lines[1] == '"""Doc."""'
    assert lines[2] == "from __future__ import annotations"
    assert lines[3] == NAMESPACE_IMPORT
    assert "@ag.function(autograph=False)" in out
    assert f"def f(x):\n    {MARK}\n    return x" in out
    ast.parse(out)


def test_call_decorator_arguments_are_kept_and_autograph_replaced():
    out = build('''
        from autograph import function as stage

        @stage(reduce_retracing=True, autograph=True)
        def f(x):
            return x
    ''')
    assert "@stage(reduce_retracing=True, autograph=False)" in out


def test_undecorated_function_is_marked_do_not_convert_and_rest_untouched():
    source = '''
        import os  # kept
        import autograph as ag
        CONSTANT = 3

        def helper(x):
            return x + CONSTANT

        class C:
            def m(self):
                return 1
    '''
    out = build(source, all_functions=True)
    assert "import os  # kept\nimport autograph as ag\nCONSTANT = 3\n" in out
    assert "@ag.do_not_convert\ndef helper(x):" in out
    assert "    @ag.do_not_convert\n    def m(self):\n        " + MARK in out
    ast.parse(out)


def test_nested_function_is_converted_once_with_its_outer_function():
    out = build('''
        def outer(x):
            def inner(y):
                return y
            return inner(x)
    ''', all_functions=True)
    assert out.count("@do_not_convert") == 1
    assert out.lstrip().startswith(f"from autograph import do_not_convert\n{NAMESPACE_IMPORT}\n")
    assert out.count(NAMESPACE_IMPORT) == 1


def test_marker_reuses_an_imported_do_not_convert():
    out = build('''
        from autograph import do_not_convert as leave

        def f(x):
            return x
    ''', all_functions=True)
    assert "@leave\ndef f(x):" in out
    assert out.count("import") == 2


def test_failed_function_is_left_as_written():
    source = '''
        import autograph as ag

        @ag.function
        def gen(n):
            yield n
    '''
    assert build(source) == textwrap.dedent(source)


def test_non_ascii_text_before_edits_keeps_columns_right():
    out = build('''
        import autograph as ag

        @ag.function
        def f(x):
            return "café" + x  # é
        print("après")
    ''')
    assert 'return "café" + x  # é\nprint("après")' in out


def test_function_on_first_line_gets_the_import_before_it():
    out = build("def f(x):\n    return do_not_convert(x)\n", all_functions=True)
    assert out == (
        f"from autograph import do_not_convert as ag__do_not_convert\n{NAMESPACE_IMPORT}\n"
        f"@ag__do_not_convert\ndef f(x):\n    {MARK}\n    return do_not_convert(x)\n"
    )
    assert build("from autograph import function\n@function\ndef f(x):\n    return x\n").startswith(
        f"{NAMESPACE_IMPORT}\nfrom autograph import function\n@function(autograph=False)\n"
    )


def test_shebang_and_coding_comment_stay_on_the_first_two_lines():
    out = build("#!/usr/bin/env python\n# -*- coding: latin-1 -*-\n\nimport autograph as ag\n\n\n"
                "@ag.function\ndef f(x):\n    return x\n")
    assert out.splitlines()[:5] == [
        "#!/usr/bin/env python", "# -*- coding: latin-1 -*-", "", NAMESPACE_IMPORT, "import autograph as ag",
    ]


def test_a_methods_docstring_keeps_its_text_when_the_converted_def_is_indented():
    """The converted method is printed at column 0 and moved right: not inside its docstring."""
    from autograph.pipeline import convert_source as real_convert_source

    source = textwrap.dedent('''
        class K:
            def f(self, x):
                """Summary.

                  detail
                """
                if x > 0:
                    x = -x
                return x
    ''')
    out = build_module(ast.parse(source), source, real_convert_source(source, "m.py", all_functions=True))
    original, converted = {}, {}
    exec(compile(source, "m.py", "exec"), original)  # noqa: S102 - the test's own text
    exec(compile(out, "m_out.py", "exec"), converted)  # noqa: S102
    assert converted["K"].f.__doc__ == original["K"].f.__doc__
    assert converted["K"]().f(3) == -3
