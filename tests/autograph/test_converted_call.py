"""converted_call: overrides first, then what is called as is, then conversion of user code."""

from __future__ import annotations

import builtins
import functools
import math
import time

import numpy as np

import autograph as ag
from autograph.converted_call import converted_call, is_convertible
from runtime.operators.builtins import AS_IS_FOR_PYTHON_VALUES, OVERRIDES
from runtime.tracing.tensor import Tensor
from tests.runtime.operators.graphs import trace


def user_function(x):
    if x > 0:
        return x
    return -x


class Scaler:
    def __init__(self, k):
        self.k = k

    def scale(self, x):
        while x < self.k:
            x = x * 2
        return x


def test_user_functions_are_converted_once():
    assert converted_call(user_function, -3) == 3
    assert converted_call(user_function, x=4) == 4
    from autograph.converted_call import _TARGETS

    target = _TARGETS[user_function]
    assert target is not user_function
    assert getattr(target, "__autograph_converted__", True)
    assert converted_call(user_function, 5) == 5
    assert _TARGETS[user_function] is target


def test_bound_methods_are_converted_with_self():
    scaler = Scaler(10)
    assert converted_call(scaler.scale, 3) == 12


class LeakyRelu:
    """A callable object, as layers and models are."""

    def __init__(self, leak):
        self.leak = leak

    def __call__(self, x):
        if x > 0:
            return x
        return x * self.leak


def scaled(x, factor, offset=0.0):
    if factor > 1:
        return x * factor + offset
    return x + offset


def test_callable_objects_and_partials_are_converted():
    relu = LeakyRelu(0.5)
    partial = functools.partial(scaled, factor=3, offset=1.0)
    assert converted_call(relu, -2.0) == -1.0 and converted_call(relu, 4.0) == 4.0
    assert converted_call(partial, 2.0) == 7.0
    assert converted_call(functools.partial(max, 3), 5) == 5  # a builtin's partial runs as is

    def staged(x):
        return converted_call(relu, x) + converted_call(partial, x, factor=x)

    f = trace(staged, (np.float64, ()))  # the ifs on Tensors are staged, not Python bools
    assert f(-2.0) == -1.0 + -2.0 + 1.0 and f(2.0) == 2.0 + 2.0 * 2.0 + 1.0


def test_builtins_numpy_stdlib_and_classes_run_as_is():
    assert converted_call(np.sum, [1, 2]) == 3
    assert converted_call(math.floor, 2.5) == 2
    assert converted_call(sorted, [3, 1], reverse=True) == [3, 1]
    assert isinstance(converted_call(Scaler, 2), Scaler)
    assert not is_convertible(np.sum)
    assert not is_convertible(math.floor)
    assert not is_convertible(Scaler)
    assert is_convertible(user_function)


def test_overrides_are_called_instead_of_builtins(monkeypatch):
    def original(x):
        return "original"

    monkeypatch.setitem(OVERRIDES, original, lambda x: ("override", x))
    assert converted_call(original, 1) == ("override", 1)
    assert converted_call(len, [1, 2, 3]) == 3


def test_builtins_called_directly_on_python_values_still_stage_tensors():
    assert all(getattr(builtins, f.__name__) is f for f in AS_IS_FOR_PYTHON_VALUES)
    assert np.asarray not in AS_IS_FOR_PYTHON_VALUES  # a list of Tensors is a Python value it stages
    seen = []

    def staged(x):
        seen.append(converted_call(int, x))
        seen.append(converted_call(max, 2, x))  # a Tensor second argument
        seen.append(converted_call(int, x) + converted_call(len, [x, x]))
        return seen[-1]

    for _ in range(2):  # the first call finds the override, the second takes the fast path
        assert converted_call(range, 2, 5) == range(2, 5)
        assert converted_call(range, 0, 9, 3) == range(0, 9, 3)
        assert converted_call(int, "ff", 16) == 255
        assert converted_call(max, [1, 3], default=0) == 3
        assert trace(staged, (np.float64, ()))(2.5) == 4
    assert all(isinstance(value, Tensor) for value in seen)
    assert [value.dtype for value in seen[:3]] == [np.int64, np.float64, np.int64]


def test_do_not_convert_and_function_objects_run_as_is():
    calls = []

    @ag.do_not_convert
    def marked(x):
        calls.append(x)
        return x

    class FunctionLike:
        __autograph_function__ = True

        def __call__(self, x):
            return x + 1

    assert converted_call(marked, 1) == 1
    assert not is_convertible(marked)
    assert converted_call(FunctionLike(), 1) == 2


def test_functions_without_source_run_unconverted():
    namespace: dict = {}
    exec("def made(x):\n    return x * 3\n", namespace)
    assert converted_call(namespace["made"], 2) == 6


def test_lambdas_are_converted():
    f = lambda x: x if x > 0 else -x  # noqa: E731
    assert converted_call(f, -2) == 2


def test_generators_are_called_as_is():
    def gen(n):
        yield from range(n)

    assert list(converted_call(gen, 3)) == [0, 1, 2]


def test_fast_path_overhead_is_small():
    def tiny(x):
        return x

    converted_call(tiny, 1)
    n = 20000
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            converted_call(tiny, 1)
        best = min(best, (time.perf_counter() - start) / n)
    assert best < 10e-6  # generous bound for loaded CI machines; typically well under 1 us


def test_callables_run_as_is_are_remembered_by_type_only():
    import sys

    from autograph.converted_call import _AS_IS_TYPES

    ufunc = np.frompyfunc(lambda a: a + 1, 1, 1)
    table = {1: 2}
    items = [1, 2, 3]
    for _ in range(2):  # the first call decides, the second finds the type
        before = sys.getrefcount(ufunc)
        assert converted_call(ufunc, 1) == 2
        assert sys.getrefcount(ufunc) == before  # nothing holds the ufunc itself
        assert converted_call(table.get, 3, 0) == 0  # a builtin method of a dict
        assert converted_call(items.index, 3) == 2
        assert isinstance(converted_call(Scaler, 2), Scaler)
        assert converted_call(np.negative, 2.0) == -2.0
    assert {np.ufunc, type, type(table.get)} <= _AS_IS_TYPES
    assert not any(kind.__flags__ & (1 << 9) for kind in _AS_IS_TYPES)  # no class made at run time


def test_a_remembered_type_does_not_hide_an_override(monkeypatch):
    class Local:
        pass

    assert isinstance(converted_call(Local), Local)  # classes: run as is, by type
    monkeypatch.setitem(OVERRIDES, Local, lambda: "override")
    assert converted_call(Local) == "override"


def test_a_class_changed_after_a_call_is_called_as_it_is_now():
    class Switch:
        def __call__(self, x):
            return "first"

    switch = Switch()
    assert converted_call(switch, 1) == "first"
    Switch.__call__ = lambda self, x: "second"
    assert converted_call(switch, 1) == "second"
    del Switch.__call__
    Switch.__call__ = staticmethod(len)  # now a builtin: run as is, still by the object
    assert converted_call(switch, [1, 2]) == 2
    from autograph.converted_call import _AS_IS_TYPES

    assert Switch not in _AS_IS_TYPES  # its __call__ may change again


def test_bound_methods_find_their_converted_function_each_call():
    scaler = Scaler(10)
    assert converted_call(scaler.scale, 3) == 12
    assert converted_call(scaler.scale, 5) == 10

    class Marked:
        @ag.do_not_convert
        def run(self, x):
            return x

    assert converted_call(Marked().run, 4) == 4


def test_unhashable_callables_are_converted_or_run_as_is():
    class Unhashable:
        def __eq__(self, other):
            return self is other

        def __call__(self, x):
            if x > 0:
                return x
            return -x

    assert converted_call(Unhashable(), -3) == 3
    assert converted_call(Unhashable().__call__, x=-4) == 4  # a bound method of it


def test_min_and_max_of_a_list_holding_a_tensor_stage_on_every_call():
    def staged(x):
        return converted_call(max, [x, 2.5]), converted_call(min, (x, 2.5))

    for _ in range(2):  # the fast path may not call the builtin on a list of Tensors
        assert converted_call(max, [1, 3]) == 3
        assert trace(staged, (np.float64, ()))(7.0) == (7.0, 2.5)
