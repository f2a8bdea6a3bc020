from contextlib import contextmanager

import pytest

from autograph.tracing import variable_policy
from autograph.tracing.variable_policy import traced_with_variable_policy

CREATED: list = []


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
            state["v"] = object()
            CREATED.append(state["v"])
        return state["traces"]

    assert traced_with_variable_policy(trace, True, "f") == 2


def test_created_every_trace_raises():
    def trace():
        CREATED.append(object())

    with pytest.raises(ValueError, match="only supports singleton Variables created on the first call"):
        traced_with_variable_policy(trace, True, "f")


def test_created_in_later_trace_raises():
    with pytest.raises(ValueError, match="after the first"):
        traced_with_variable_policy(lambda: CREATED.append(object()), False, "f")
