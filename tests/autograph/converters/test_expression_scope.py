"""expression_scope: operands that bind or suspend are not moved into lambdas."""

import gast

from autograph.converters.expression_scope import binds_or_suspends


def test_binds_or_suspends():
    assert binds_or_suspends([gast.parse("(y := 1)", mode="eval").body])
    assert not binds_or_suspends([gast.parse("a + f(b)", mode="eval").body])


def _fn(source):
    return gast.parse(source).body[0]


def test_rewrite_expressions_rewrites_the_innermost_first_and_enters_lambdas_only():
    from autograph.converters.expression_scope import rewrite_expressions
    from autograph.source.emitter import emit

    fn = _fn("def f(x):\n    def g(y):\n        return h(y)\n    return a(b(x), lambda: c(x))\n")
    seen = []

    def call(node):
        seen.append(node.func.id)
        return gast.Call(func=gast.Name("w", gast.Load(), None, None), args=[node], keywords=[])

    rewrite_expressions(fn, {gast.Call: call})
    assert sorted(seen[:2]) == ["b", "c"] and seen[2] == "a"  # the nested def's h(y) is its own
    assert emit(fn).text.splitlines()[-1] == "    return w(a(w(b(x)), lambda: w(c(x))))"


def test_fused_expression_passes_print_what_the_passes_print_one_after_the_other(monkeypatch):
    from pathlib import Path

    from autograph import pipeline
    from autograph.converters import call_trees, logical_expressions
    from autograph.pipeline import convert_source

    corpus = Path(pipeline.__file__).resolve().parent.parent / "bench" / "corpus"
    names = ("scalar_code.py", "array_code.py", "solver_code.py")
    sources = [(corpus / name).read_text(encoding="utf-8") for name in names]
    fused = [[f.code for f in convert_source(s, "m.py", all_functions=True)] for s in sources]
    assert logical_expressions in pipeline._FUSED and call_trees in pipeline._FUSED
    monkeypatch.setattr(pipeline, "_FUSED", ())  # each pass its own walk, in order
    apart = [[f.code for f in convert_source(s, "m.py", all_functions=True)] for s in sources]
    assert fused == apart
