"""`ag.convert(f)` runs f's own code outside traces and the converted code wherever anything stages."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from autograph.python_mode import fast_calls


@pytest.fixture(autouse=True)
def _fast():
    with fast_calls(True):  # the suite turns them off (tests/conftest.py)
        yield


def clamp_steps(x, limit=10, /, step=1, *rest, scale=1, **extra):
    count = 0
    while x < limit:
        x += step * scale
        count += 1
    return count + len(rest) + len(extra)


def sign(x):
    if x > 0:
        return 1.0
    return -1.0


def make_counter(start):
    offset = start

    def count_to(n):
        total = offset
        for i in range(n):
            total += i
        return total

    return count_to


def test_outside_a_trace_the_copy_runs_the_original_code():
    g = ag.convert(clamp_steps)
    assert g.__code__ is clamp_steps.__code__
    assert g(0) == clamp_steps(0) == 10
    assert g(0, 4, 2, 7, 8, scale=2, z=1) == clamp_steps(0, 4, 2, 7, 8, scale=2, z=1) == 4
    assert g.__name__ == "clamp_steps" and g.__defaults__ == clamp_steps.__defaults__


def test_the_copy_keeps_the_closure_cells():
    original = make_counter(5)
    g = ag.convert(original)
    assert g.__code__ is original.__code__
    assert g(4) == original(4) == 11


def test_called_while_tracing_the_copy_stages_control_flow():
    g = ag.convert(sign)
    traced_code = []

    @ag.function
    def outer(x):
        traced_code.append(g.__code__ is sign.__code__)
        return g(x) * 2.0

    assert outer(np.float64(3.0)) == 2.0
    assert outer(np.float64(-3.0)) == -2.0
    assert traced_code == [False]  # one trace, which ran the converted code: `x > 0` is a Tensor
    assert outer.experimental_get_tracing_count() == 1
    assert g.__code__ is sign.__code__  # the original code is back once the trace ended


def test_a_function_of_the_copy_traces_the_converted_code():
    g = ag.convert(clamp_steps)
    staged = ag.function(g)
    assert staged(np.int64(0), np.int64(7), np.int64(2)) == 4
    assert staged.experimental_get_tracing_count() == 1
    assert staged(np.int64(1), np.int64(7), np.int64(2)) == 3  # the same trace: the loop is staged
    assert staged.experimental_get_tracing_count() == 1


def test_an_eager_tape_runs_the_converted_code():
    g = ag.convert(sign)
    w = ag.Variable(2.0)
    with ag.GradientTape() as tape:
        assert g.__code__ is not sign.__code__
        y = g(w) * w
    assert g.__code__ is sign.__code__
    assert float(tape.gradient(y, w)) == 1.0


def test_to_code_shows_the_conversion_of_the_original():
    assert ag.to_code(ag.convert(sign)) == ag.to_code(sign)


def test_turned_off_convert_returns_the_converted_code():
    with fast_calls(False):
        g = ag.convert(sign)
    assert g.__code__ is not sign.__code__
    assert g(2) == 1.0 and g(-2) == -1.0


def test_a_copy_made_while_tracing_starts_with_the_converted_code():
    seen = []

    @ag.function
    def outer(x):
        g = ag.convert(sign)
        seen.append(g.__code__ is sign.__code__)
        return g(x)

    assert outer(np.float64(-1.5)) == -1.0
    assert seen == [False]


def test_the_trampoline_passes_every_kind_of_argument():
    g = ag.convert(clamp_steps)

    @ag.function
    def outer(x):
        return g(x, 4, 2, 7, 8, scale=2, z=1) + g(x, 3, step=1)

    assert outer(np.int64(0)) == 4 + 3
    assert outer(np.int64(2)) == 4 + 1  # the same trace: x is a Tensor, the loops are staged
    assert outer.experimental_get_tracing_count() == 1


def test_to_code_while_tracing_shows_the_conversion_of_the_original():
    g = ag.convert(sign)
    shown = []

    @ag.function
    def outer(x):
        shown.append(str(ag.to_code(g)))
        return g(x)

    outer(np.float64(1.0))
    assert shown == [str(ag.to_code(sign))]
