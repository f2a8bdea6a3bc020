import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.tracing.retracing import RetracingWarning


def test_reduce_retracing_relaxes_dims_after_second_trace():
    @ag.function(reduce_retracing=True, autograph=False)
    def f(x):
        return x + 1

    for n in range(1, 6):
        np.testing.assert_array_equal(f(np.zeros(n)), np.ones(n))
    assert f.experimental_get_tracing_count() == 2
    assert "shape=(None,)" in f.pretty_printed_concrete_signatures()
    f(np.zeros((2, 2)))  # another rank: a new trace
    assert f.experimental_get_tracing_count() == 3


def test_without_reduce_retracing_every_shape_traces():
    @ag.function(autograph=False)
    def f(x):
        return x + 1

    for n in range(1, 4):
        f(np.zeros(n))
    assert f.experimental_get_tracing_count() == 3


def test_reduce_retracing_keeps_python_values_exact():
    @ag.function(reduce_retracing=True, autograph=False)
    def f(x, n):
        return x * n

    f(np.zeros(2), 1)
    f(np.zeros(3), 2)
    assert f.experimental_get_tracing_count() == 2
    np.testing.assert_array_equal(f(np.ones(4), 2), [2, 2, 2, 2])


def test_warning_names_the_changing_argument():
    @ag.function(autograph=False)
    def f(x, n):
        return x + n

    with pytest.warns(RetracingWarning, match="argument 'n'") as record:
        for n in range(6):
            f(np.ones(1), n)
    assert len(record) == 1
    assert record[0].filename == __file__


def test_no_warning_when_calls_hit_the_cache():
    @ag.function(autograph=False)
    def f(x, n):
        return x + n

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in range(10):
            f(np.ones(1), n)
            f(np.ones(1), n)


def test_calls_that_fit_a_relaxed_trace_end_the_retrace_streak():
    @ag.function(reduce_retracing=True, autograph=False)
    def f(x):
        return x + 1

    with warnings.catch_warnings():
        warnings.simplefilter("error", RetracingWarning)
        for n in range(2, 7):  # traces (2,) then (None,); 4, 5, 6 run the relaxed trace
            f(np.zeros(n))
        for shape in ((2, 2), (3, 3), (4, 4, 1)):  # 3 traces: not 5 in a row
            f(np.zeros(shape))
    assert f.experimental_get_tracing_count() == 5


def test_with_reduce_retracing_the_warning_does_not_suggest_it():
    @ag.function(reduce_retracing=True, autograph=False)
    def f(x, n):
        return x + n

    with pytest.warns(RetracingWarning, match="argument 'n'") as record:
        for n in range(6):
            f(np.ones(1), n)
    message = str(record[0].message)
    assert "reduce_retracing" not in message and "input_signature" in message
