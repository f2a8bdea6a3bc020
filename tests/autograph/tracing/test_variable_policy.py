from contextlib import contextmanager

import numpy as np
import pytest

import autograph as ag
from autograph.tracing import variable_policy
from autograph.tracing.variable_policy import traced_with_variable_policy

CREATED: list = []


class _Created:
    """Stands for a Variable made with a concrete value."""

    is_initialized = True


@contextmanager
def fake_scope():
    start = len(CREATED)
    found: list = []
    yield found
    found.extend(CREATED[start:])


@pytest.fixture(autouse=True)
def scope(monkeypatch):
    monkeypatch.setattr(variable_policy, "_created", fake_scope)
    CREATED.clear()


def test_no_variables_traces_once():
    calls = []
    assert traced_with_variable_policy(lambda: calls.append(1) or "cf", True, "f") == "cf"
    assert calls == [1]


def test_created_once_traces_again_and_keeps_second():
    state = {"v": None, "traces": 0}

    def trace():
        state["traces"] += 1
        if state["v"] is None:
            state["v"] = _Created()
            CREATED.append(state["v"])
        return state["traces"]

    assert traced_with_variable_policy(trace, True, "f") == 2


def test_created_every_trace_raises():
    def trace():
        CREATED.append(_Created())

    with pytest.raises(ValueError, match="only supports singleton Variables created on the first call"):
        traced_with_variable_policy(trace, True, "f")


def test_created_in_later_trace_raises():
    with pytest.raises(ValueError, match="after the first"):
        traced_with_variable_policy(lambda: CREATED.append(_Created()), False, "f")


class _Model:
    def __init__(self):
        self.v = None

    @ag.function
    def __call__(self, x):
        if self.v is None:
            self.v = ag.Variable(x * 2)
        self.v.assign_add(x)
        return self.v.read_value()


def test_a_variable_from_a_staged_value_gets_it_on_the_first_run_only():
    model = _Model()
    assert model(np.float32(1.0)) == 3.0
    assert model(np.float32(1.0)) == 4.0
    assert model(np.float32(5.0)) == 9.0
    assert model.v.dtype == np.float32 and model.v.shape == ()
    assert model.__call__.experimental_get_tracing_count() == 1


def test_a_variable_without_its_value_yet_says_so():
    holder = []

    @ag.function
    def make(x):
        holder.append(ag.Variable(x + 1, dtype=np.float64))
        return x

    cf = make.get_concrete_function(ag.TensorSpec((2,), np.float32))
    variable = holder[0]
    assert variable.shape == (2,) and variable.dtype == np.float64
    assert "not yet initialised" in repr(variable)
    with pytest.raises(ag.errors.FailedPreconditionError, match="has no value yet"):
        variable.numpy()
    cf(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(variable.numpy(), [2.0, 3.0])


def test_a_staged_initial_value_needs_a_known_shape():
    @ag.function(input_signature=[ag.TensorSpec((None,), np.float32)])
    def make(x):
        return ag.Variable(x)

    with pytest.raises(ag.errors.StagingError, match="fully known shape"):
        make(np.ones(3, np.float32))
