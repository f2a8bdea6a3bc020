"""convert_source: the static entry (`autograph convert file.py`), which never imports the file."""

from __future__ import annotations

import textwrap

from autograph.pipeline import convert_source

SOURCE = textwrap.dedent(
    '''
    import numpy as np
    import autograph as ag
    from autograph import function as fn
    import autograph

    raise SystemExit("this file must never run")

    @ag.function
    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    @fn(input_signature=None)
    def aliased(x):
        return np.tanh(x)

    @autograph.function()
    def called_decorator(x):
        if x > 0:
            x = -x
        return x

    def plain(x):
        return x + 1

    def gen(x):
        yield x

    class Model:
        @ag.function
        def method(self, x):
            for i in range(3):
                x += i
            return x
    '''
)


def test_decorated_functions_by_default():
    results = convert_source(SOURCE, "model.py")
    names = [r.qualname for r in results]
    assert names == ["collatz", "aliased", "called_decorator", "Model.method"]
    assert all(r.error is None for r in results)
    collatz = results[0]
    assert collatz.lineno == 10
    assert collatz.code.startswith("def collatz(n):\n")
    assert "ag__.while_stmt(lambda: n != 1, loop_body, ('n', 'steps'))" in collatz.code
    assert "@" not in collatz.code
    assert "np.tanh(x)" in results[1].code


def test_selected_names_and_errors_per_function():
    results = convert_source(SOURCE, "model.py", names=["plain", "gen", "Model.method"])
    by_name = {r.qualname: r for r in results}
    assert by_name["plain"].code.strip() == "def plain(x):\n    return x + 1"
    error = by_name["gen"].error
    assert error is not None and "model.py:" in str(error) and "yield" in str(error)
    assert by_name["gen"].code == ""
    assert by_name["Model.method"].error is None


def test_all_functions():
    results = convert_source(SOURCE, "model.py", all_functions=True)
    assert len(results) == 6
    gen = next(r for r in results if r.qualname == "gen")
    # only --all picked it: kept as written, as converted code calls generators
    assert (gen.kept, gen.error, gen.code) == ("a generator", None, "")
    assert all(not r.kept for r in results if r.qualname != "gen")


def test_syntax_error_is_a_conversion_error():
    import pytest

    from runtime.ir.errors import ConversionError

    with pytest.raises(ConversionError, match="bad.py"):
        convert_source("def f(:\n    pass\n", "bad.py")


SKIPPABLE = textwrap.dedent(
    '''
    def loop_else(xs):
        for x in xs:
            pass
        else:
            xs = 0
        return xs

    def early_return(n):
        while n > 0:
            if n == 3:
                return n
            n -= 1
        return -1

    def chained(a, b, c):
        return a < b < c

    def plain(x, items):
        y = x * 2
        items.append(y)
        return y
    '''
)


def test_skipped_passes_do_not_change_the_output(monkeypatch):
    """Passes with nothing to rewrite are skipped; running every pass prints the same code."""
    from pathlib import Path

    from autograph import pipeline

    corpus = Path(pipeline.__file__).resolve().parent.parent / "bench" / "corpus" / "scalar_code.py"
    sources = [SKIPPABLE, corpus.read_text(encoding="utf-8")]
    fast = [[f.code for f in convert_source(s, "m.py", all_functions=True)] for s in sources]
    monkeypatch.setattr(pipeline, "_needed_passes", _every_pass)
    slow = [[f.code for f in convert_source(s, "m.py", all_functions=True)] for s in sources]
    assert fast == slow


def _every_pass(fn, census=None):
    from autograph import pipeline as p

    return [
        p.directives, p.lists, p.asserts, p.break_statements, p.continue_statements,
        p.return_statements, p.conditional_expressions, p.logical_expressions, p.call_trees,
    ]


def test_a_plain_function_skips_the_passes_with_nothing_to_do():
    import gast

    from autograph import pipeline

    fn = gast.parse("def f(x):\n    return x + 1\n").body[0]
    assert pipeline._needed_passes(fn) == [pipeline.call_trees]
    early = gast.parse("def f(x):\n    if x:\n        return 1\n    return x + 1\n").body[0]
    assert pipeline._needed_passes(early) == [pipeline.return_statements, pipeline.logical_expressions, pipeline.call_trees]


def test_one_name_unpackings_are_parenthesised_line_by_line():
    from autograph.pipeline import _one_name_unpackings

    text = "def f():\n    x, = vars_\n    y, = 1\n    a, b = c\n    z, = w, = v\n    s = 'x, = y'"
    assert _one_name_unpackings(text) == (
        "def f():\n    (x,) = vars_\n    (y,) = 1\n    a, b = c\n    z, = w, = v\n    s = 'x, = y'"
    )
    assert _one_name_unpackings("x = 1") == "x = 1"
