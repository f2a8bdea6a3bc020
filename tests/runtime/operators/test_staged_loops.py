"""Staged while loops, loop options and names first bound in a loop, as converted code.

Staged for loops: test_staged_for.py; what staged loops refuse: test_staged_loop_errors.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime import operators as ag__
from runtime.ir.errors import InvalidArgumentError
from runtime.operators.ranges import range_
from tests.runtime.operators import graphs
from tests.runtime.operators.graphs import SCALAR_I, state_of, trace


def line_of(marker: str) -> str:
    return graphs.line_of(__file__, marker)


def tanh_loop(x):
    def get_state():
        return (x,)

    def set_state(values):
        nonlocal x
        (x,) = values

    def loop_test():
        return np.sum(x) > 1

    def loop_body():
        nonlocal x
        x = np.tanh(x)

    ag__.while_stmt(loop_test, loop_body, ("x",), opts={}, get_state=get_state, set_state=set_state)
    return x


def test_simple_tanh_loop_from_the_guide():
    f = trace(tanh_loop, (np.float64, (5,)))
    start = np.array([0.666, 0.714, 0.724, 0.331, 0.184])
    expected = start
    while np.sum(expected) > 1:
        expected = np.tanh(expected)
    np.testing.assert_allclose(f(start), expected)
    print(f"tanh loop: {f.node_count} nodes; result {f(start)}")
    assert [n.op for n in f.graph.nodes].count("while") == 1


def collatz(n):
    steps = 0

    def get_state():
        return (n, steps)

    def set_state(values):
        nonlocal n, steps
        n, steps = values

    def loop_test():
        return n != 1

    def loop_body():
        nonlocal n, steps
        n = ag__.if_exp(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1, "n % 2 == 0")
        steps += 1

    ag__.while_stmt(loop_test, loop_body, ("n", "steps"), opts={}, get_state=get_state, set_state=set_state)
    return steps


def test_collatz_is_traced_once_whatever_the_iteration_count():
    f = trace(collatz, SCALAR_I)
    assert f(np.int64(27)) == 111
    assert f(np.int64(1)) == 0
    assert f(np.int64(6)) == 8
    print(f"collatz: {f.node_count} nodes; steps(27) = {f(np.int64(27))}")


COLLATZ = trace(collatz, SCALAR_I)


def python_collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 10_000))
def test_staged_collatz_matches_python(n):
    assert COLLATZ(np.int64(n)) == python_collatz(n)


def accumulate_until(t):
    x = 0

    def get_state():
        return (x,)

    def set_state(values):
        nonlocal x
        (x,) = values

    def loop_test():
        return x < 10

    def loop_body():
        nonlocal x
        x = x + t

    ag__.while_stmt(loop_test, loop_body, ("x",), opts={}, get_state=get_state, set_state=set_state)
    return x


def test_python_test_that_becomes_a_tensor_stages_the_rest():
    f = trace(accumulate_until, SCALAR_I)
    assert f(np.int64(3)) == 12
    assert f(np.int64(20)) == 20  # the first iteration ran in Python, while tracing


def test_maximum_iterations_is_honoured():
    def count(n):
        scope = {"i": 0}
        get_state, set_state = state_of(("i",), scope)

        def loop_body():
            scope["i"] = scope["i"] + 1

        ag__.while_stmt(lambda: scope["i"] < n, loop_body, ("i",), opts={"maximum_iterations": 4}, get_state=get_state, set_state=set_state)
        return scope["i"]

    f = trace(count, SCALAR_I)
    assert (f(np.int64(2)), f(np.int64(10))) == (2, 4)


def test_shape_invariants_let_a_loop_variable_grow():
    def grow(n):
        scope = {"x": np.zeros(1)}
        get_state, set_state = state_of(("x",), scope)

        def loop_body():
            scope["x"] = np.concatenate([scope["x"], scope["x"][:1] + 1.0])

        start = scope["x"]
        ag__.while_stmt(lambda: np.shape(scope["x"])[0] < n, loop_body, ("x",), opts={"shape_invariants": [(start, (None,))]}, get_state=get_state, set_state=set_state)
        return scope["x"]

    f = trace(grow, SCALAR_I)
    np.testing.assert_array_equal(f(np.int64(3)), [0.0, 1.0, 1.0])


def last_square(n):
    scope = {"y": ag__.Undefined("y")}
    get_state, set_state = state_of(("y",), scope)

    def loop_body(itr):
        i = itr
        scope["y"] = i * i

    ag__.for_stmt(range_(n), loop_body, ("y",), opts={"iterate_names": "i"}, get_state=get_state, set_state=set_state)  # <- first-bound
    return scope["y"]


def test_name_first_bound_in_a_loop_needs_one_iteration_at_run_time():
    f = trace(last_square, SCALAR_I)
    assert f(np.int64(4)) == 9
    with pytest.raises(InvalidArgumentError) as info:
        f(np.int64(0))
    print(info.value)
    assert "'y' is first bound inside the for loop" in str(info.value)
    assert line_of("# <- first-bound") in str(info.value)
