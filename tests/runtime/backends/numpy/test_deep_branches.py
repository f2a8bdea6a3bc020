"""Conds nested deeper than Python indents: branches past DEEP_INDENT levels are functions of their own."""

import numpy as np
import pytest

from runtime.backends.numpy.codegen import generate_source
from runtime.backends.numpy.compiler import compile_graph, to_source
from runtime.backends.numpy.control_code import DEEP_INDENT
from runtime.backends.numpy.interpret import interpret
from runtime.tracing.control_flow import cond
from tests.runtime.tracing import build, outputs_equal


def _chain(depth: int):
    """`x == 0 ? a*0 : x == 1 ? a*1 : ...`: one cond per level, each branch reading the outer `a`
    and `x` (captures through every level) and the inner ones adding to what the outer computed."""

    def f(x, a):
        def level(i, acc):
            if i == depth:
                return acc - 1
            return cond(x == i, lambda: acc + a * i, lambda: level(i + 1, acc + 1))

        return level(0, a)

    return f


@pytest.mark.parametrize("depth", [3, DEEP_INDENT + 5, 3 * DEEP_INDENT])
def test_deep_conds_compile_and_equal_the_interpreter(depth):
    graph = build(_chain(depth), (np.int64, ()), (np.int64, ()), names=("x", "a"))
    compiled = compile_graph(graph)
    source = compiled.source
    assert max(len(line) - len(line.lstrip()) for line in source.splitlines()) < 4 * (DEEP_INDENT + 2)
    assert ("def branch" in source) == (depth > DEEP_INDENT - 2)
    compile(source, "<check>", "exec")
    for x in (0, 1, depth // 2, depth - 1, depth, depth + 7):
        args = [np.int64(x), np.int64(5)]
        assert outputs_equal(compiled(*args), interpret(graph, *args))


def test_branch_functions_follow_the_function_and_keep_line_origins():
    graph = build(_chain(DEEP_INDENT + 3), (np.int64, ()), (np.int64, ()), names=("x", "a"))
    generated = generate_source(graph)
    lines = generated.source.splitlines()
    main_end = next(i for i, line in enumerate(lines) if line.startswith("    return ["))
    assert all(not line.startswith("def branch") for line in lines[:main_end])
    calls = [line.strip() for line in lines[:main_end] if "branch" in line and not line.strip().startswith("#")]
    assert calls and all("= branch" in call for call in calls)  # the cond's output comes back
    for number, origin in generated.line_origins.items():
        assert lines[number - 1].strip(), (number, origin)


def test_shallow_graph_source_is_unchanged():
    source = to_source(build(_chain(4), (np.int64, ()), (np.int64, ()), names=("x", "a")))
    assert "def branch" not in source and source.count("def ") == 1
