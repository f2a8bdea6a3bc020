"""UnrollWarning: a Python loop that runs more than 100 times while tracing."""

import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.tracing import unrolling


def _unroll_warnings(caught):
    return [w for w in caught if w.category is ag.UnrollWarning]


def test_long_python_for_loop_warns_once_naming_the_line():
    @ag.function
    def f(x):
        for i in range(300):  # the loop line
            x = x + i
        return x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert f(np.float64(1)) == 1 + sum(range(300))
        f(np.float32(1))  # a second trace of the same loop: no second warning
    [warning] = _unroll_warnings(caught)
    text = str(warning.message)
    assert warning.filename == __file__
    assert "for i in range(300):  # the loop line" in text
    assert "ran 300 times while tracing, adding" in text
    assert "ag.range" in text
    nodes = int(text.split("adding ")[1].split(" nodes")[0])
    assert nodes >= 300


def test_short_loop_and_staged_loop_do_not_warn():
    @ag.function
    def f(x, n):
        for i in range(100):
            x = x + i
        for _ in ag.range(n):
            x = x + 1.0
        return x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert f(np.float64(0), np.int64(1000)) == sum(range(100)) + 1000
    assert not _unroll_warnings(caught)


def test_python_while_loop_warns():
    @ag.function
    def f(x):
        n = 0
        while n < 150:
            x = x * 1.0
            n += 1
        return x

    with pytest.warns(ag.UnrollWarning, match="make its condition a tensor"):
        f(np.float64(2))


def test_strict_makes_it_a_staging_error_at_the_101st_iteration():
    seen = []

    @ag.function(strict=True)
    def f(x):
        for i in range(10_000):
            seen.append(i)
            x = x + i
        return x

    with pytest.raises(ag.errors.StagingError, match="more than 100 times") as info:
        f(np.float64(0))
    assert "strict=True" in str(info.value)
    assert "for i in range(10_000):" in str(info.value)
    assert len(seen) == 100


def test_python_mode_does_not_count():
    calls = []
    original = unrolling.UnrollWatch.__init__

    def spy(self, statement):
        calls.append(statement)
        original(self, statement)

    unrolling.UnrollWatch.__init__ = spy
    try:
        def f(x):
            for i in range(200):
                x = x + i
            return x

        assert ag.convert(f)(0) == sum(range(200))
    finally:
        unrolling.UnrollWatch.__init__ = original
    assert calls == []


def test_nested_loops_add_up():
    @ag.function
    def f(x):
        for _i in range(20):
            for j in range(20):  # 20 iterations at a time, 400 in all
                x = x + j
        return x

    with pytest.warns(ag.UnrollWarning, match=r"for loop ran 120 times in all \(it is inside another loop\)"):
        assert f(np.float64(0)) == 20 * sum(range(20))
