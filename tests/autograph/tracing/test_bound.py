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
