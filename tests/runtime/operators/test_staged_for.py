"""Staged for loops over ranges, Tensors and TensorArrays, written as converted code."""

from __future__ import annotations

import numpy as np

from runtime import operators as ag__
from runtime.operators.builtins import OVERRIDES
from runtime.operators.ranges import range_
from tests.runtime.operators.graphs import SCALAR_I, state_of, trace


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

    ag__.for_stmt(OVERRIDES[range](n), loop_body, ("total",), opts={"iterate_names": "i"}, get_state=get_state, set_state=set_state)
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

        ag__.if_stmt(i % 3 == 0, if_body, else_body, ("fizz", "buzz"), 2, get_state=get_state, set_state=set_state)

    ag__.for_stmt(range_(1, n + 1), loop_body, ("fizz", "buzz"), opts={"iterate_names": "i"}, get_state=get_state, set_state=set_state)
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

    ag__.for_stmt(pairs, loop_body, ("total",), opts={"iterate_names": "x, y"}, get_state=get_state, set_state=set_state)
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

    ag__.for_stmt(dataset, loop_body, ("loss",), opts={"iterate_names": "x, y"}, get_state=get_state, set_state=set_state)
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
    ag__.for_stmt(pairs, loop_body, ("total",), opts={"iterate_names": "i, (x, y)"}, get_state=get_state, set_state=set_state)
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

        ag__.if_stmt(x < 0, if_body, else_body, names, 3, get_state=get_state, set_state=set_state)

    ag__.for_stmt(xs, loop_body, names, extra_test=extra_test, opts={"iterate_names": "x"}, get_state=get_state, set_state=set_state)

    def if_body_1():
        scope["do_return"] = True
        scope["retval_"] = xs[0] * 0

    ag__.if_stmt(ag__.not_(scope["do_return"]), if_body_1, lambda: None, names, 2, get_state=get_state, set_state=set_state)
    return scope["retval_"], scope["seen"]


def test_return_and_break_inside_a_staged_loop():
    f = trace(first_negative, (np.int64, (None,)))
    assert f(np.array([3, 1, -4, 1, -5])) == (-4, 3)
    assert f(np.array([3, 1])) == (0, 2)


def fizzbuzz(n):
    """The guide's fizzbuzz as converted code: a staged for with a nested staged if chain."""
    from runtime.tracing.effects import print_

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

                ag__.if_stmt(i % 5 == 0, if_body_2, else_body_2, (), 0, get_state=no_state, set_state=set_none)

            ag__.if_stmt(i % 3 == 0, if_body_1, else_body_1, (), 0, get_state=no_state, set_state=set_none)

        ag__.if_stmt(i % 15 == 0, if_body, else_body, (), 0, get_state=no_state, set_state=set_none)

    ag__.for_stmt(range_(1, n + 1), loop_body, (), opts={"iterate_names": "i"}, get_state=no_state, set_state=set_none)
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
    from runtime.tracing.tensor_array import TensorArray

    def f(xs):
        array = TensorArray(np.int64, size=0, dynamic_size=True).unstack(xs)
        scope = {"total": 0}
        get_state, set_state = state_of(("total",), scope)

        def loop_body(itr):
            scope["total"] = scope["total"] + itr * itr

        ag__.for_stmt(array, loop_body, ("total",), opts={"iterate_names": "x"}, get_state=get_state, set_state=set_state)
        return scope["total"]

    g = trace(f, (np.int64, (None,)))
    assert g(np.array([1, 2, 3])) == 14
