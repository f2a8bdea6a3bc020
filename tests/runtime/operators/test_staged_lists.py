"""Accumulating in staged loops: TensorArray (the guide's dynamic_rnn) and staged lists."""

from __future__ import annotations

import numpy as np
import pytest

from runtime import operators as ag__
from runtime.ir.errors import StagingError
from runtime.operators.builtins import OVERRIDES
from runtime.operators.ranges import range_
from runtime.operators.staged_lists import StagedList
from runtime.tracing.tensor_array import TensorArray
from tests.runtime.operators.graphs import trace


def rnn_step(inp, state):
    return inp + state


def dynamic_rnn(input_data, initial_state):
    """The guide's example: [batch, time, features] -> states, one staged loop."""
    input_data = np.transpose(input_data, (1, 0, 2))
    max_seq_len = input_data.shape[0]
    states = TensorArray(np.float64, size=max_seq_len)
    state = initial_state

    def get_state():
        return (state, states)

    def set_state(values):
        nonlocal state, states
        state, states = values

    def loop_body(itr):
        nonlocal state, states
        i = itr
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)

    ag__.for_stmt(range_(max_seq_len), loop_body, ("state", "states"), opts={"iterate_names": "i"}, get_state=get_state, set_state=set_state)
    return np.transpose(states.stack(), (1, 0, 2))


def test_dynamic_rnn_with_a_tensor_array():
    f = trace(dynamic_rnn, (np.float64, (2, 3, 4)), (np.float64, (2, 4)))
    data = np.random.default_rng(0).uniform(size=(2, 3, 4))
    result = f(data, np.zeros((2, 4)))
    np.testing.assert_allclose(result, np.cumsum(data, axis=1))
    print(f"dynamic_rnn: {f.node_count} nodes; result shape {result.shape}")
    assert [n.op for n in f.graph.nodes].count("while") == 1


def doubled(xs):
    outputs = []

    def get_state():
        return (outputs,)

    def set_state(values):
        nonlocal outputs
        (outputs,) = values

    def loop_body(itr):
        nonlocal outputs
        x = itr
        outputs = ag__.list_append(outputs, x * 2)

    ag__.for_stmt(xs, loop_body, ("outputs",), opts={"iterate_names": "x"}, get_state=get_state, set_state=set_state)
    assert isinstance(outputs, StagedList)
    return np.stack(outputs), OVERRIDES[len](outputs)


def test_list_appended_in_a_staged_loop_becomes_a_staged_list():
    f = trace(doubled, (np.int64, (None,)))
    stacked, length = f(np.array([1, 2, 3]))
    np.testing.assert_array_equal(stacked, [2, 4, 6])
    assert length == 3
    print(f"accumulate in a loop: {f.node_count} nodes")


def sum_of_list(xs):
    items = []
    total = xs[0] * 0
    scope = {"items": items, "total": total}

    def get_state():
        return (scope["items"],)

    def set_state(values):
        (scope["items"],) = values

    def loop_body(itr):
        scope["items"] = ag__.list_append(scope["items"], itr + 1)

    ag__.for_stmt(xs, loop_body, ("items",), opts={"iterate_names": "x"}, get_state=get_state, set_state=set_state)

    def get_total():
        return (scope["total"],)

    def set_total(values):
        (scope["total"],) = values

    def sum_body(itr):
        scope["total"] = scope["total"] + itr

    ag__.for_stmt(scope["items"], sum_body, ("total",), opts={"iterate_names": "y"}, get_state=get_total, set_state=set_total)
    return scope["total"]


def test_staged_list_can_be_iterated_by_another_staged_loop():
    f = trace(sum_of_list, (np.int64, (None,)))
    assert f(np.array([1, 2, 3])) == 9


def test_appending_python_objects_in_a_staged_loop_is_an_error_naming_the_list():
    def f(xs):
        names = []

        def get_state():
            return (names,)

        def set_state(values):
            nonlocal names
            (names,) = values

        def loop_body(itr):
            nonlocal names
            names = ag__.list_append(names, "row")

        ag__.for_stmt(xs, loop_body, ("names",), opts={"iterate_names": "x"}, get_state=get_state, set_state=set_state)
        return xs

    with pytest.raises(StagingError, match="the list 'names' is appended str values inside a staged loop"):
        trace(f, (np.int64, (None,)))
