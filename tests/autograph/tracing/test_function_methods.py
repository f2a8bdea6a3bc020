"""A Function as a method: one cache per instance, held weakly.

Static and class methods, eager runs, temporary, unhashable and slotted
instances, copies.
"""

import gc
import weakref

import numpy as np
import pytest

import autograph as ag
from tests.autograph.tracing.plain import traced


def test_methods_have_one_cache_per_instance_held_weakly():
    class Counter:
        def __init__(self, step):
            self.step = step

        @traced
        def add(self, x):
            return x + self.step

    a, b = Counter(1), Counter(10)
    assert a.add(np.int64(1)) == 2
    assert b.add(np.int64(1)) == 11
    assert a.add == a.add and a.add.__func__ is a.add.__func__
    assert a.add.experimental_get_tracing_count() == 1
    assert str(a.add.get_concrete_function(np.int64(0))).startswith("ConcreteFunction add(x)")
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None


def test_static_and_class_methods():
    class K:
        factor = 3

        @staticmethod
        @traced
        def s1(x):
            return x * 2

        @traced
        @staticmethod
        def s2(x):
            return x * 2

        @classmethod
        @traced
        def c1(cls, x):
            return x * cls.factor

        @traced
        @classmethod
        def c2(cls, x):
            return x * cls.factor

    one = np.int64(1)
    assert K.s1(one) == K.s2(one) == K().s2(one) == 2
    assert K.c1(one) == K.c2(one) == K().c2(one) == 3


def test_methods_run_eagerly_and_expose_the_bound_python_function():
    class Box:
        def __init__(self):
            self.calls = 0

        @traced
        def bump(self, x):
            self.calls += 1
            return x + self.calls

    box = Box()
    assert box.bump.python_function.__self__ is box
    try:
        ag.run_functions_eagerly(True)
        assert box.bump(1) == 2 and box.bump(1) == 3
    finally:
        ag.run_functions_eagerly(False)
    assert box.bump(np.int64(1)) == 4  # traced: the Python side effect happens once
    assert box.bump(np.int64(1)) == 4


def test_temporary_instances_stay_alive_during_the_call():
    class Scale:
        factor = 2

        @traced
        def apply(self, x):
            return x * self.factor

    assert Scale().apply(np.int64(4)) == 8


def test_unhashable_and_slotted_instances():
    class Unhashable:
        __hash__ = None

        @traced
        def f(self, x):
            return x + 1

    obj = Unhashable()
    assert obj.f(np.int64(1)) == 2
    assert obj.f.__func__ is obj.f.__func__

    class Slotted:
        __slots__ = ("k",)

        @traced
        def f(self, x):
            return x

    with pytest.raises(TypeError, match="__weakref__"):
        Slotted().f(np.int64(1))


def test_copies_have_their_own_cache():
    import copy

    @traced
    def f(x):
        return x + 1

    f(np.int64(1))

    class Holder:
        def __init__(self):
            self.fn = f

    clone = copy.deepcopy(Holder()).fn
    assert clone is not f and clone.experimental_get_tracing_count() == 0
    assert clone(np.int64(1)) == 2
    assert copy.copy(f).python_function is f.python_function
    assert "f" in repr(clone)
