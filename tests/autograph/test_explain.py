"""ag.explain: what became of each statement, call and side effect while tracing."""

import io
from pathlib import Path

import numpy as np
import pytest

import autograph as ag
from autograph.cli import main as cli_main
from fixtures.diagnostics import fallbacks
from tests.autograph.test_golden import CASES, GOLDEN, load_case

COLLATZ = Path(__file__).resolve().parents[2] / "fixtures" / "collatz.py"


def _outcomes(explanation):
    return {(r.line, r.statement, r.outcome) for r in explanation.records}


def test_collatz_stages_its_while_and_conditional_expression_without_touching_the_cache():
    from fixtures.collatz import collatz

    before = collatz.experimental_get_tracing_count()
    explanation = ag.explain(collatz, np.int64(27))
    assert collatz.experimental_get_tracing_count() == before
    assert {(12, "while", "staged"), (13, "if-else", "staged"), (9, "def", "converted")} <= _outcomes(explanation)
    [loop] = [r for r in explanation.records if r.statement == "while"]
    assert loop.file == str(COLLATZ) and loop.detail == "while_loop carrying (n, steps)"
    text = str(explanation)
    assert "collatz.py:12  while   staged" in text
    assert "traced for collatz(n: int64[])" in text


def test_python_if_unrolled_loop_side_effects_and_staged_if():
    log = []

    def g(x, n, flag):
        print("tracing g")
        if flag:
            x = x + 1
        for i in range(n):
            log.append(i)
            x = x * 2.0
        if x > 0:
            y = x
        else:
            y = -x
        return y + np.random.random()

    explanation = ag.explain(g, ag.TensorSpec([], np.float64), 3, True)
    first = g.__code__.co_firstlineno
    by_line = {(r.line - first, r.outcome): r for r in explanation.records}
    assert "print" in by_line[(1, "side-effect")].detail
    assert by_line[(2, "python")].detail.startswith("the condition `flag` is a Python bool (True)")
    assert by_line[(4, "unrolled")].detail == "ran 3 times while tracing, adding 3 nodes"
    assert "list.append" in by_line[(5, "side-effect")].detail
    assert by_line[(7, "staged")].detail == "cond carrying (y)"
    assert "np.random.random draws" in by_line[(11, "side-effect")].detail
    assert explanation.error is None and explanation.nodes > 0


def test_unconverted_helper_and_try_with():
    helper = ag.explain(fallbacks.uses_helper, np.int64(3))
    [call] = helper.by_outcome("unconverted")
    assert call.line == 18 and "clipped_helper runs as Python: marked do_not_convert" in call.detail
    assert "control flow at" in call.detail

    in_with = ag.explain(fallbacks.staged_in_with, np.int64(3))
    [record] = in_with.by_outcome("traced-in-with")
    assert record.line == 23 and "with block at line 22" in record.detail


def test_unrolled_loop_over_the_limit_is_reported_without_a_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explanation = ag.explain(fallbacks.long_loop, np.int64(0))
    [loop] = explanation.by_outcome("unrolled")
    assert loop.line == 29 and loop.detail.startswith("ran 500 times")
    with pytest.warns(ag.UnrollWarning):  # explain did not use up the loop's one warning
        ag.function(fallbacks.long_loop)(np.int64(0))


def test_a_strict_function_is_explained_not_refused():
    f = ag.function(fallbacks.uses_helper, strict=True)
    explanation = ag.explain(f, np.int64(3))
    assert explanation.error is None and explanation.by_outcome("unconverted")


def test_methods_and_bound_functions():
    class Model:
        def __init__(self):
            self.w = 2.0

        @ag.function
        def __call__(self, x):
            if x > 0:
                return x * self.w
            return x

    model = Model()
    explanation = ag.explain(model.__call__, np.float64(1))
    assert [r.statement for r in explanation.by_outcome("staged")] == ["if"]


def test_a_failed_trace_is_the_last_record():
    def bad(x):
        return x.no_such_attribute

    explanation = ag.explain(bad, np.float64(1))
    assert explanation.error is not None
    assert explanation.records[-1].outcome == "error"
    assert "the trace failed at" in str(explanation)


@pytest.mark.parametrize("name", CASES)
def test_explain_runs_on_every_golden_fixture_and_names_only_its_lines(name):
    module = load_case(name)
    function = getattr(module, name)
    path = GOLDEN / f"{name}.py"
    lines = len(path.read_text().splitlines())
    for args in module.INPUTS:
        for variant in (args, _as_numpy(args)):
            explanation = ag.explain(function, *variant)
            assert isinstance(str(explanation), str)
            for record in explanation.records:
                assert record.file == str(path), (name, record)
                assert 1 <= record.line <= lines, (name, record)


def _as_numpy(args):
    return tuple(np.asarray(a)[()] if type(a) in (int, float, bool) else a for a in args)


def test_cli_explain():
    out = io.StringIO()
    status = cli_main(["explain", f"{COLLATZ}:collatz", "--arg", "int64[]"], stdout=out)
    assert status == 0
    assert "collatz.py:12  while   staged         while_loop carrying (n, steps)" in out.getvalue()
    out = io.StringIO()
    status = cli_main(["explain", f"{fallbacks.__file__}:staged_in_with", "--arg", "int64[]"], stdout=out)
    assert "traced-in-with" in out.getvalue()


def test_python_if_names_its_condition_and_staged_for_its_variables():
    def h(x, n):
        if n > 0:
            x = x + 1
        for i in ag.range(n):
            x = x + i
        return x

    explanation = ag.explain(h, np.int64(0), 2)
    [python_if] = explanation.by_outcome("python")
    assert python_if.detail.startswith("the condition `n > 0` is a Python bool (True)")
    explanation = ag.explain(h, np.int64(0), np.int64(2))
    statements = {(r.statement, r.detail) for r in explanation.by_outcome("staged")}
    assert ("if", "cond carrying (x)") in statements
    assert any(s == "for" and "x" in d for s, d in statements)


def test_cli_explain_of_a_file_with_a_syntax_error(tmp_path):
    bad = tmp_path / "bad_syntax.py"
    bad.write_text("def f(x):\n    if x > 0\n        return x\n")
    out, err = io.StringIO(), io.StringIO()
    assert cli_main(["explain", f"{bad}:f", "--arg", "int64[]"], stdout=out, stderr=err) == 1
    assert "syntax error" in err.getvalue()


def _helper_with_loop(x):
    while x > 10:
        x = x // 2
    return x


def test_helpers_converted_on_the_way_are_listed():
    def outer(x):
        return _helper_with_loop(x) + 1

    explanation = ag.explain(outer, np.int64(100))
    converted = {r.detail for r in explanation.by_outcome("converted")}
    assert converted == {"outer", "_helper_with_loop"}
    [loop] = explanation.by_outcome("staged")
    assert loop.line == _helper_with_loop.__code__.co_firstlineno + 1
    assert "functions converted: " in str(explanation)
