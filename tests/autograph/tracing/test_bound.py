import numpy as np

import autograph as ag
from autograph.tracing.bound import BoundFunction


class Model:
    def __init__(self, scale):
        self.scale = scale

    @ag.function(autograph=False)
    def call(self, x):
        return x * self.scale


def test_lookup_returns_a_bound_function_per_instance_cache():
    m = Model(3)
    bound = m.call
    assert isinstance(bound, BoundFunction)
    assert bound.__self__ is m
    assert bound == m.call and hash(bound) == hash(m.call)
    assert bound != Model(3).call
    assert bound(np.int64(2)) == 6
    assert bound.experimental_get_tracing_count() == 1
    assert "bound ag.Function" in repr(bound)
    assert bound.__autograph_function__


def test_each_instance_counts_its_own_traces_and_the_class_function_none():
    # as TensorFlow's methods: model.call is a Function of its own per instance
    class Scaler:
        def __init__(self, scale):
            self.scale = scale

        @ag.function
        def call(self, x):
            return x * self.scale

    a, b = Scaler(2.0), Scaler(3.0)
    a.call(np.float64(1.0))
    a.call(np.float64(2.0))
    a.call(np.ones(2))
    b.call(np.float64(1.0))
    assert a.call.experimental_get_tracing_count() == 2
    assert b.call.experimental_get_tracing_count() == 1
    assert Scaler.call.experimental_get_tracing_count() == 0
    assert Scaler.call.pretty_printed_concrete_signatures() == ""
    assert Scaler.call(a, np.float64(1.0)) == 2.0  # called through the class: the class's own cache
    assert Scaler.call.experimental_get_tracing_count() == 1
