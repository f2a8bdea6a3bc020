"""Staged while and for loops, written as converted code."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime import operators as ag__
from runtime.errors import InvalidArgumentError, StagingError
from runtime.operators.builtins import OVERRIDES
from runtime.ranges import range_
from tests.runtime.operators import graphs
from tests.runtime.operators.graphs import trace

SCALAR_I = (np.int64, ())
SCALAR_F = (np.float64, ())


def line_of(marker: str) -> str:
    return graphs.line_of(__file__, marker)


def state_of(names, scope):
    """get_state/set_state over a dict standing for the converted function's locals."""
    def get_state():
        return tuple(scope[n] for n in names)

    def set_state(values):
        scope.update(zip(names, values))

    return get_state, set_state


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

    ag__.while_stmt(loop_test, loop_body, get_state, set_state, ("x",), {})
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

    ag__.while_stmt(loop_test, loop_body, get_state, set_state, ("n", "steps"), {})
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

    ag__.while_stmt(loop_test, loop_body, get_state, set_state, ("x",), {})
    return x


def test_python_test_that_becomes_a_tensor_stages_the_rest():
    f = trace(accumulate_until, SCALAR_I)
    assert f(np.int64(3)) == 12
    assert f(np.int64(20)) == 20  # the first iteration ran in Python, while tracing


def sum_range(n):
    total = 0

    def get_state():
        return (total,)

    def set_state(values):
        nonlocal total
        (total,) = values

    def loop_body(itr):
        nonlocal total
        i = itr
        total += i

    ag__.for_stmt(OVERRIDES[range](n), None, loop_body, get_state, set_state, ("total",),
                  {"iterate_names": "i"})
    return total


def test_for_over_range_of_a_tensor_is_one_loop_whatever_n():
    f = trace(sum_range, SCALAR_I)
    assert [f(np.int64(n)) for n in (0, 1, 5, 100)] == [0, 0, 10, 4950]
    assert [n.op for n in f.graph.nodes].count("while") == 1


def test_range_override_falls_back_to_python_range():
    assert OVERRIDES[range](3) == range(3)


def fizzbuzz_count(n):
    scope = {"fizz": 0, "buzz": 0}
    get_state, set_state = state_of(("fizz", "buzz"), scope)

    def loop_body(itr):
        i = itr
        print("Tracing for loop")

        def if_body():
            print("Tracing fizz branch")
            scope["fizz"] = scope["fizz"] + 1

        def else_body():
            print("Tracing default branch")

        ag__.if_stmt(i % 3 == 0, if_body, else_body, get_state, set_state, ("fizz", "buzz"), 2)

    ag__.for_stmt(range_(1, n + 1), None, loop_body, get_state, set_state, ("fizz", "buzz"),
                  {"iterate_names": "i"})
    return scope["fizz"]


def test_fizzbuzz_style_loop_traces_each_branch_once(capsys):
    f = trace(fizzbuzz_count, SCALAR_I)
    out = capsys.readouterr().out.splitlines()
    assert out == ["Tracing for loop", "Tracing fizz branch", "Tracing default branch"]
    assert f(np.int64(5)) == 1
    assert f(np.int64(20)) == 6
    assert capsys.readouterr().out == ""


def pair_distance(pairs):
    total = 0

    def get_state():
        return (total,)

    def set_state(values):
        nonlocal total
        (total,) = values

    def loop_body(itr):
        nonlocal total
        x, y = itr
        total += OVERRIDES[abs](y - x)

    ag__.for_stmt(pairs, None, loop_body, get_state, set_state, ("total",), {"iterate_names": "x, y"})
    return total


def test_for_over_a_tensor_unpacks_rows_into_a_tuple_target():
    f = trace(pair_distance, (np.int64, (None, 2)))
    assert f(np.array([[1, 4], [5, 2], [0, 0]])) == 6
    assert f(np.zeros((0, 2), np.int64)) == 0


def python_list_train(dataset, loss):

    def get_state():
        return (loss,)

    def set_state(values):
        nonlocal loss
        (loss,) = values

    def loop_body(itr):
        nonlocal loss
        x, y = itr
        loss += OVERRIDES[abs](y - x)

    ag__.for_stmt(dataset, None, loop_body, get_state, set_state, ("loss",), {"iterate_names": "x, y"})
    return loss


def test_train_loop_over_python_data_grows_with_the_data_over_a_tensor_does_not(capsys):
    sizes = {}
    for count in (3, 10):
        data = [(np.int64(1), np.int64(1))] * count
        as_tensor = np.ones((count, 2), np.int64)
        unrolled = trace(lambda loss, data=data: python_list_train(data, loss), SCALAR_I)
        staged = trace(python_list_train, (np.int64, (None, 2)), SCALAR_I)
        assert staged(as_tensor, np.int64(0)) == 0
        assert unrolled(np.int64(0)) == 0
        sizes[count] = (unrolled.node_count, staged.node_count)
        print(f"train over {count} pairs: {unrolled.node_count} nodes as a Python list, "
              f"{staged.node_count} as a tensor")
    assert sizes[10][0] > sizes[3][0]
    assert sizes[10][1] == sizes[3][1]


def enumerate_zip(a, b):
    total = 0

    def get_state():
        return (total,)

    def set_state(values):
        nonlocal total
        (total,) = values

    def loop_body(itr):
        nonlocal total
        i, (x, y) = itr
        total += i * x * y

    pairs = OVERRIDES[enumerate](OVERRIDES[zip](a, b))
    ag__.for_stmt(pairs, None, loop_body, get_state, set_state, ("total",), {"iterate_names": "i, (x, y)"})
    return total


def test_enumerate_and_zip_over_tensors():
    f = trace(enumerate_zip, (np.int64, (None,)), (np.int64, (None,)))
    a, b = np.array([1, 2, 3, 4]), np.array([5, 6, 7])
    assert f(a, b) == sum(i * x * y for i, (x, y) in enumerate(zip(a, b)))


def first_negative(xs):
    """for x in xs: if x < 0: return x / return 0 — return and break as flags."""
    scope = {"do_return": False, "retval_": ag__.Undefined("retval_"), "seen": 0}
    names = ("do_return", "retval_", "seen")
    get_state, set_state = state_of(names, scope)

    def extra_test():
        return ag__.not_(scope["do_return"])

    def loop_body(itr):
        x = itr
        scope["seen"] = scope["seen"] + 1

        def if_body():
            scope["do_return"] = True
            scope["retval_"] = x

        def else_body():
            pass

        ag__.if_stmt(x < 0, if_body, else_body, get_state, set_state, names, 3)

    ag__.for_stmt(xs, extra_test, loop_body, get_state, set_state, names, {"iterate_names": "x"})

    def if_body_1():
        scope["do_return"] = True
        scope["retval_"] = xs[0] * 0

    ag__.if_stmt(ag__.not_(scope["do_return"]), if_body_1, lambda: None, get_state, set_state, names, 2)
    return scope["retval_"], scope["seen"]


def test_return_and_break_inside_a_staged_loop():
    f = trace(first_negative, (np.int64, (None,)))
    assert f(np.array([3, 1, -4, 1, -5])) == (-4, 3)
    assert f(np.array([3, 1])) == (0, 2)


def test_maximum_iterations_is_honoured():
    def count(n):
        scope = {"i": 0}
        get_state, set_state = state_of(("i",), scope)

        def loop_body():
            scope["i"] = scope["i"] + 1

        ag__.while_stmt(lambda: scope["i"] < n, loop_body, get_state, set_state, ("i",),
                        {"maximum_iterations": 4})
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
        ag__.while_stmt(lambda: np.shape(scope["x"])[0] < n, loop_body, get_state, set_state, ("x",),
                        {"shape_invariants": [(start, (None,))]})
        return scope["x"]

    f = trace(grow, SCALAR_I)
    np.testing.assert_array_equal(f(np.int64(3)), [0.0, 1.0, 1.0])


def last_square(n):
    scope = {"y": ag__.Undefined("y")}
    get_state, set_state = state_of(("y",), scope)

    def loop_body(itr):
        i = itr
        scope["y"] = i * i

    ag__.for_stmt(range_(n), None, loop_body, get_state, set_state, ("y",), {"iterate_names": "i"})  # <- first-bound
    return scope["y"]


def test_name_first_bound_in_a_loop_needs_one_iteration_at_run_time():
    f = trace(last_square, SCALAR_I)
    assert f(np.int64(4)) == 9
    with pytest.raises(InvalidArgumentError) as info:
        f(np.int64(0))
    print(info.value)
    assert "'y' is first bound inside the for loop" in str(info.value)
    assert line_of("# <- first-bound") in str(info.value)


# -- errors ----------------------------------------------------------------------
def changing_dtype(t):
    scope = {"x": 0}
    get_state, set_state = state_of(("x",), scope)

    def loop_body():
        scope["x"] = scope["x"] + 0.5

    ag__.while_stmt(lambda: scope["x"] < t, loop_body, get_state, set_state, ("x",), {})  # <- dtype
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

    ag__.for_stmt(range_(3), None, loop_body, get_state, set_state, ("s",), {"iterate_names": "i"})
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

        ag__.while_stmt(lambda: t > 0, loop_body, get_state, set_state, ("x",), {})  # <- changing
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

    ag__.for_stmt([1, 2, 3], lambda: ag__.not_(scope["stop"]), loop_body, get_state, set_state,  # <- pybreak
                  names, {"iterate_names": "i"})
    return scope["total"]


def test_tensor_dependent_break_in_a_python_loop_is_an_error():
    with pytest.raises(StagingError) as info:
        trace(tensor_break_in_python_loop, SCALAR_I)
    print(info.value)
    assert "a tensor-dependent break" in str(info.value)
    assert "ag.range" in str(info.value)
    assert line_of("# <- pybreak") in str(info.value)


def test_returning_a_tensor_in_a_loop_and_none_after_it_is_an_error():
    def f(xs):
        scope = {"do_return": False, "retval": None}
        names = ("do_return", "retval")
        get_state, set_state = state_of(names, scope)

        def loop_body(itr):
            scope["do_return"] = True
            scope["retval"] = itr

        ag__.for_stmt(xs, lambda: ag__.not_(scope["do_return"]), loop_body, get_state, set_state,
                      names, {"iterate_names": "x"})  # <- falls off
        return xs

    with pytest.raises(StagingError) as info:
        trace(f, (np.int64, (None,)))
    print(info.value)
    assert "the function returns an int64[] Tensor from inside a staged for loop but None" in str(info.value)


def fizzbuzz(n):
    """The guide's fizzbuzz as converted code: a staged for with a nested staged if chain."""
    from runtime.effects import print_

    def no_state():
        return ()

    def set_none(values):
        pass

    def loop_body(itr):
        i = itr
        print("Tracing for loop")

        def if_body():
            print("Tracing fizzbuzz branch")
            print_("fizzbuzz")

        def else_body():
            def if_body_1():
                print("Tracing fizz branch")
                print_("fizz")

            def else_body_1():
                def if_body_2():
                    print("Tracing buzz branch")
                    print_("buzz")

                def else_body_2():
                    print("Tracing default branch")
                    print_(i)

                ag__.if_stmt(i % 5 == 0, if_body_2, else_body_2, no_state, set_none, (), 0)

            ag__.if_stmt(i % 3 == 0, if_body_1, else_body_1, no_state, set_none, (), 0)

        ag__.if_stmt(i % 15 == 0, if_body, else_body, no_state, set_none, (), 0)

    ag__.for_stmt(range_(1, n + 1), None, loop_body, no_state, set_none, (), {"iterate_names": "i"})
    return n


def test_guide_fizzbuzz_traces_each_branch_once_and_prints_at_every_run(capsys):
    f = trace(fizzbuzz, SCALAR_I)
    traced = capsys.readouterr().out.splitlines()
    assert traced == ["Tracing for loop", "Tracing fizzbuzz branch", "Tracing fizz branch",
                      "Tracing buzz branch", "Tracing default branch"]
    f(np.int64(5))
    assert capsys.readouterr().out.split() == ["1", "2", "fizz", "4", "buzz"]
    f(np.int64(15))
    assert capsys.readouterr().out.split()[-3:] == ["13", "14", "fizzbuzz"]
    print("\n".join(traced))
    print(f"fizzbuzz: {f.node_count} nodes")


def test_for_over_a_tensor_array():
    from runtime.tensor_array import TensorArray

    def f(xs):
        array = TensorArray(np.int64, size=0, dynamic_size=True).unstack(xs)
        scope = {"total": 0}
        get_state, set_state = state_of(("total",), scope)

        def loop_body(itr):
            scope["total"] = scope["total"] + itr * itr

        ag__.for_stmt(array, None, loop_body, get_state, set_state, ("total",), {"iterate_names": "x"})
        return scope["total"]

    g = trace(f, (np.int64, (None,)))
    assert g(np.array([1, 2, 3])) == 14


@pytest.mark.parametrize("types, target, expected", [
    ((np.int64, ()), "x", "a staged for loop iterates over a 0-d Tensor"),
    ((np.int64, (None, 3)), "x, y", "cannot unpack an int64[3] Tensor into 2 names"),
    ((np.int64, (None, None)), "x, y", "its first dimension is not known while tracing"),
])
def test_iteration_errors_name_the_line(types, target, expected):
    def f(t):
        ag__.for_stmt(t, None, lambda itr: None, lambda: (), lambda v: None, (),  # <- iterate
                      {"iterate_names": target})
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

    ag__.while_stmt(loop_test, loop_body, get_state, set_state, ("x",), {})  # <- the loop
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
