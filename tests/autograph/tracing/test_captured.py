"""CapturedValueWarning: a Python value a trace read has changed since."""

import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.tracing.captured import watches_of
from fixtures.diagnostics import stale_global


def _captured(caught):
    return [w for w in caught if w.category is ag.CapturedValueWarning]


def test_guide_buggy_add_warns_once_naming_the_global_and_line():
    assert stale_global.buggy_add() == 2
    assert stale_global.buggy_add() == 2  # the fast call
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stale_global.foo = 100
        try:
            assert stale_global.buggy_add() == 2  # the graph keeps the traced value, as in TensorFlow
            assert stale_global.buggy_add() == 2
            stale_global.foo = 7
            assert stale_global.buggy_add() == 2
        finally:
            stale_global.foo = 1
    [warning] = _captured(caught)
    text = str(warning.message)
    assert "the global 'foo'" in text and "is now 100" in text and "still uses 1" in text
    assert warning.filename == stale_global.__file__ and warning.lineno == 10  # `return 1 + foo`
    assert "Pass it as an argument" in text and "ag.Variable" in text
    assert stale_global.recommended_add(np.int64(100)) == 101


def test_attribute_of_an_object_argument():
    class Model:
        def __init__(self):
            self.weight = 2.0

    @ag.function
    def evaluate(model, x):
        return model.weight * x

    model = Model()
    assert evaluate(model, np.float64(3)) == 6.0
    model.weight = 5.0
    with pytest.warns(ag.CapturedValueWarning, match=r"the attribute 'Model.weight'.*is now 5.0"):
        assert evaluate(model, np.float64(3)) == 6.0


def test_attribute_of_self_in_a_method():
    class Model:
        def __init__(self):
            self.bias = 0.0

        @ag.function
        def __call__(self, x):
            return x + self.bias

    model = Model()
    model(np.float64(1))
    model(np.float64(1))
    model.bias = 1.0
    with pytest.warns(ag.CapturedValueWarning, match="Model.bias"):
        model(np.float64(1))


def test_closure_value():
    scale = 2.0

    @ag.function
    def f(x):
        return x * scale

    f(np.float64(1))
    f(np.float64(1))
    scale = 3.0  # noqa: F841 - read by f's closure
    with pytest.warns(ag.CapturedValueWarning, match="the closure variable 'scale'"):
        assert f(np.float64(1)) == 2.0


def test_equal_value_and_own_writes_do_not_warn():
    class Counter:
        def __init__(self):
            self.calls = 0

    counter = Counter()

    @ag.function
    def f(x):
        counter.calls += 1  # the trace's own write: the value after tracing is the one watched
        return x + LIMIT

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(np.float64(1))
        f(np.float64(1))
        globals()["LIMIT"] = 10 ** 3 // 100  # an equal value, another object
        f(np.float64(1))
    assert not _captured(caught)


LIMIT = 10


def test_modules_functions_and_variables_are_not_watched():
    v = ag.Variable(1.0)

    def f(x):
        return np.sin(x) + v + LIMIT

    names = [w.name for w in watches_of(f, {})]
    assert names == ["LIMIT"]


def test_a_concrete_function_called_directly_warns_too():
    holder = {"k": 2.0}

    class Config:
        k = 0.0

    config = Config()
    config.k = holder["k"]

    @ag.function
    def f(x):
        return x * config.k

    cf = f.get_concrete_function(np.float64(1))
    assert cf(np.float64(1)) == 2.0
    assert cf(np.float64(1)) == 2.0
    config.k = 4.0
    with pytest.warns(ag.CapturedValueWarning, match="Config.k"):
        assert cf(np.float64(1)) == 2.0
