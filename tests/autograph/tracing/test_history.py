"""f.experimental_get_tracing_history(): one record per trace, with why it traced."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag


def test_first_call_and_python_int_change():
    @ag.function
    def f(x, n):
        return x * n

    f(np.zeros(3, np.float32), 3)
    f(np.zeros(3, np.float32), 3)  # a hit: no record
    f(np.zeros(3, np.float32), 4)
    history = f.experimental_get_tracing_history()
    assert len(history) == 2 == f.experimental_get_tracing_count()
    assert history[0].reason == "first call"
    assert history[0].signature == "f(x: float32[3], n: Python int 3)"
    assert history[1].reason == (
        "argument 'n': Python int 3 -> 4 (a Python number is a constant; "
        "pass np.int64(n) or use follow_type_hints)"
    )


def test_shape_change_suggests_reduce_retracing():
    @ag.function
    def f(x):
        return x + 1

    f(np.zeros(3, np.float32))
    f(np.zeros(4, np.float32))
    assert f.experimental_get_tracing_history()[1].reason == (
        "argument 'x': float32[3] -> float32[4] (reduce_retracing=True would generalise)"
    )


def test_reason_is_against_the_nearest_trace():
    @ag.function
    def f(x, n):
        return x * n

    f(np.zeros(3), 1)
    f(np.zeros(4, np.float32), 2)
    f(np.zeros(3), 2)  # one argument from each earlier trace: the latest wins ties
    reason = f.experimental_get_tracing_history()[2].reason
    assert reason.startswith("argument 'x': float32[4] -> float64[3]")


def test_float_and_dtype_and_structure_reasons():
    @ag.function
    def f(x):
        return x

    f(1.5)
    f(2.5)
    f(np.float32(1))
    f([np.float32(1)])
    reasons = [r.reason for r in f.experimental_get_tracing_history()]
    assert "pass np.float64(x)" in reasons[1]
    assert reasons[2].startswith("argument 'x': Python float 2.5 -> float32[]")
    assert "list of 1" in reasons[3]


def test_input_signature_traces_once():
    @ag.function(input_signature=[ag.TensorSpec([None], np.float32)])
    def f(x):
        return x

    f(np.zeros(3, np.float32))
    f(np.zeros(5, np.float32))
    [record] = f.experimental_get_tracing_history()
    assert record.reason == "first call"
    assert record.signature == "f(x: float32[?])"


def test_retracing_warning_names_the_same_reason():
    @ag.function
    def g(n):
        return n + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(5):
            g(i)
    [warning] = [w for w in caught if w.category is ag.RetracingWarning]
    last = g.experimental_get_tracing_history()[-1].reason
    assert last in str(warning.message)
    assert "Python int 3 -> 4" in str(warning.message)


@pytest.mark.parametrize("relaxed", [False, True])
def test_reduce_retracing_advice(relaxed):
    @ag.function(reduce_retracing=relaxed)
    def f(x):
        return x

    f(np.zeros((2, 3)))
    f(np.zeros((2, 4)))
    reason = f.experimental_get_tracing_history()[1].reason
    assert ("reduce_retracing=True" in reason) is not relaxed


_LEAVES = st.one_of(
    st.integers(-3, 3),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=2),
    st.sampled_from([np.float32, np.int64, np.float64]).flatmap(
        lambda t: st.lists(st.integers(0, 3), max_size=3).map(lambda s: np.zeros(s, t))
    ),
)
_ARGS = st.one_of(_LEAVES, st.lists(_LEAVES, max_size=2), st.tuples(_LEAVES))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_ARGS, _ARGS), min_size=1, max_size=4))
def test_every_trace_has_a_record_and_a_reason(calls):
    @ag.function
    def f(a, b):
        return (a, b)

    for a, b in calls:
        f(a, b)
    history = f.experimental_get_tracing_history()
    assert len(history) == f.experimental_get_tracing_count()
    assert history[0].reason == "first call"
    for record in history[1:]:
        assert record.reason.startswith("argument '"), record.reason
        assert record.signature.startswith("f(a: ")


def test_retracing_scalar_fixture():
    from fixtures.diagnostics.retracing import power

    x = np.float32(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 7):
            assert power(x, n) == 2.0 ** n
    history = power.experimental_get_tracing_history()
    assert [r.reason for r in history][:2] == [
        "first call",
        "argument 'n': Python int 1 -> 2 (a Python number is a constant; "
        "pass np.int64(n) or use follow_type_hints)",
    ]
    assert history[0].signature == "power(x: float32[], n: Python int 1)"
    [warning] = [w for w in caught if w.category is ag.RetracingWarning]
    assert "argument 'n': Python int 4 -> 5" in str(warning.message)
