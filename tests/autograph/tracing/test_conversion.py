import functools

import numpy as np

from autograph.tracing.conversion import converted_callable


def branchy(x, k=1):
    if x > 0:
        return x * k
    return -x


class Callable:
    def __call__(self, x):
        return branchy(x, 2)


class Child(Callable):
    pass


def test_functions_are_converted_and_behave_the_same():
    converted = converted_callable(branchy)
    assert converted is not branchy
    assert converted(3) == 3 and converted(-2) == 2


def test_partials_keep_their_bound_arguments():
    converted = converted_callable(functools.partial(branchy, k=5))
    assert isinstance(converted, functools.partial)
    assert converted.keywords == {"k": 5}
    assert converted(2) == 10


def test_callable_objects_convert_their_call_method_even_inherited():
    obj = Child()
    converted = converted_callable(obj)
    assert converted.__self__ is obj
    assert converted(4) == 8


def test_builtins_are_returned_as_they_are():
    assert converted_callable(np.tanh) is np.tanh
    assert converted_callable(len) is len
