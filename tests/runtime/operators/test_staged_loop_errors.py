"""What staged while and for loops refuse: each error names the variable, the user's line and the fix."""

from __future__ import annotations

import numpy as np
import pytest

from runtime import operators as ag__
from runtime.ir.errors import StagingError
from runtime.operators.ranges import range_
from tests.runtime.operators import graphs
from tests.runtime.operators.graphs import SCALAR_F, SCALAR_I, state_of, trace


def line_of(marker: str) -> str:
    return graphs.line_of(__file__, marker)


# -- errors ----------------------------------------------------------------------
def changing_dtype(t):
    scope = {"x": 0}
    get_state, set_state = state_of(("x",), scope)

    def loop_body():
        scope["x"] = scope["x"] + 0.5

    ag__.while_stmt(lambda: scope["x"] < t, loop_body, ("x",), opts={}, get_state=get_state, set_state=set_state)  # <- dtype
    return scope["x"]


def test_dtype_change_across_an_iteration_suggests_the_initial_value():
    with pytest.raises(StagingError) as info:
        trace(changing_dtype, SCALAR_F)
    message = str(info.value)
    print(message)
    assert "'x' changes dtype inside a staged while loop: int64 before the loop, float64" in message
    assert "x = 0.0" in message
    assert line_of("# <- dtype") in message


def float32_times_counter(x):
    scope = {"s": x * 0}
    get_state, set_state = state_of(("s",), scope)

    def loop_body(i):
        scope["s"] = scope["s"] + x * i

    ag__.for_stmt(range_(3), loop_body, ("s",), opts={"iterate_names": "i"}, get_state=get_state, set_state=set_state)
    return scope["s"]


def test_a_float32_widened_by_the_loop_counter_suggests_a_cast_too():
    with pytest.raises(StagingError) as info:
        trace(float32_times_counter, (np.float32, ()))
    message = str(info.value)
    assert "'s' changes dtype inside a staged for loop: float32 before the loop, float64" in message
    assert "To keep it float32, cast what widens it inside the loop with .astype(np.float32)" in message
    assert "counter is an int64 Tensor" in message


def loop_changing(start, update):
    def f(t):
        scope = {"x": start(t)}
        get_state, set_state = state_of(("x",), scope)

        def loop_body():
            scope["x"] = update(scope["x"], t)

        ag__.while_stmt(lambda: t > 0, loop_body, ("x",), opts={}, get_state=get_state, set_state=set_state)  # <- changing
        return t

    return f


@pytest.mark.parametrize("start, update, expected", [
    (lambda t: t, lambda x, t: np.stack([x, x]), "'x' changes rank inside a staged while loop"),
    (lambda t: None, lambda x, t: t, "'x' is None before a staged while loop and an int64[] Tensor"),
    (lambda t: [t], lambda x, t: [t, t], "the Python list 'x' changes length inside a staged while loop"),
    (lambda t: (t,), lambda x, t: t, "'x' changes structure inside a staged while loop"),
])
def test_loop_variables_that_change_kind_are_errors_naming_the_line(start, update, expected):
    with pytest.raises(StagingError) as info:
        trace(loop_changing(start, update), SCALAR_I)
    print(info.value)
    assert expected in str(info.value)
    assert line_of("# <- changing") in str(info.value)


def tensor_break_in_python_loop(t):
    scope = {"total": t * 0, "stop": False}
    names = ("total", "stop")
    get_state, set_state = state_of(names, scope)

    def loop_body(itr):
        scope["total"] = scope["total"] + itr
        scope["stop"] = scope["total"] > t

    ag__.for_stmt([1, 2, 3], loop_body, names, extra_test=lambda: ag__.not_(scope["stop"]), opts={"iterate_names": "i"}, get_state=get_state, set_state=set_state)  # <- pybreak
    return scope["total"]


def test_tensor_dependent_break_in_a_python_loop_is_an_error():
    with pytest.raises(StagingError) as info:
        trace(tensor_break_in_python_loop, SCALAR_I)
    print(info.value)
    assert "a tensor-dependent break" in str(info.value)
    assert "ag.range" in str(info.value)
    assert line_of("# <- pybreak") in str(info.value)
    # the place follows the rule it breaks, the reason goes with the fix
    assert str(info.value).splitlines()[0] == (
        f"a tensor-dependent break (or return) inside a Python for loop at {line_of('# <- pybreak')}")


def test_returning_a_tensor_in_a_loop_and_none_after_it_is_an_error():
    def f(xs):
        scope = {"do_return": False, "retval": None}
        names = ("do_return", "retval")
        get_state, set_state = state_of(names, scope)

        def loop_body(itr):
            scope["do_return"] = True
            scope["retval"] = itr

        ag__.for_stmt(xs, loop_body, names, extra_test=lambda: ag__.not_(scope["do_return"]), opts={"iterate_names": "x"}, get_state=get_state, set_state=set_state)  # <- falls off
        return xs

    with pytest.raises(StagingError) as info:
        trace(f, (np.int64, (None,)))
    print(info.value)
    assert "the function returns an int64[] Tensor from inside a staged for loop but None" in str(info.value)


@pytest.mark.parametrize("types, target, expected", [
    ((np.int64, ()), "x", "a staged for loop iterates over a 0-d Tensor"),
    ((np.int64, (None, 3)), "x, y", "cannot unpack an int64[3] Tensor into 2 names"),
    ((np.int64, (None, None)), "x, y", "its first dimension is not known while tracing"),
])
def test_iteration_errors_name_the_line(types, target, expected):
    def f(t):
        ag__.for_stmt(t, lambda itr: None, (), opts={"iterate_names": target}, get_state=lambda: (), set_state=lambda v: None)  # <- iterate
        return t

    with pytest.raises(StagingError) as info:
        trace(f, types)
    assert expected in str(info.value)
    assert line_of("# <- iterate") in str(info.value)


def loop_reads_a_name_bound_later(x):
    def get_state():
        return (x,)

    def set_state(values):
        nonlocal x
        (x,) = values

    def loop_test():
        return x > 10

    def loop_body():
        nonlocal x
        x = x + late  # <- unbound read in a loop

    ag__.while_stmt(loop_test, loop_body, ("x",), opts={}, get_state=get_state, set_state=set_state)  # <- the loop
    late = 1.0
    return x


def test_a_name_unbound_in_a_traced_loop_body_is_told_as_the_rule():
    """The body is traced even when the loop will run zero times."""
    with pytest.raises(StagingError) as info:
        trace(loop_reads_a_name_bound_later, (np.float64, ()))
    lines = str(info.value).splitlines()
    assert lines[0].startswith(
        f"'late' is unbound where the body of the staged while loop at "
        f"{line_of('# <- the loop')} reads it")
    assert lines[1].endswith("x = x + late  # <- unbound read in a loop")
    assert lines[-1] == "Give 'late' a value before the loop."
