"""Attributes and constant subscripts assigned in staged ifs and loops come out of them."""

import numpy as np
import pytest

import autograph as ag


class Accumulator:
    def __init__(self):
        self.total = np.float64(0.0)

    @ag.function
    def absolute(self, x):
        if x > 0:
            self.total = x * 2
        else:
            self.total = -x
        return self.total

    @ag.function
    def count_up(self, n):
        self.total = np.float64(0.0)
        for i in ag.range(n):
            self.total += 1.5 + i * 0
        return self.total


def test_an_attribute_set_in_both_branches_of_a_tensor_if():
    acc = Accumulator()
    assert acc.absolute(np.float64(3.0)) == 6.0
    assert acc.absolute(np.float64(-2.0)) == 2.0
    assert acc.absolute.experimental_get_tracing_count() == 1


def test_an_attribute_carried_by_a_staged_for_loop():
    acc = Accumulator()
    assert acc.count_up(np.int64(4)) == 6.0
    assert acc.count_up(np.int64(0)) == 0.0


def test_a_constant_subscript_carried_by_a_staged_while_loop():
    @ag.function
    def double_until(x):
        s = {"v": x}
        while s["v"] < 100:
            s["v"] = s["v"] * 2
        return s["v"]

    assert double_until(np.float64(3.0)) == 192.0
    assert double_until(np.float64(200.0)) == 200.0


def test_an_attribute_created_inside_the_if_needs_both_branches():
    class Holder:
        pass

    @ag.function
    def both(h, x):
        if x > 0:
            h.value = x
        else:
            h.value = -x
        return h.value

    @ag.function
    def one(h, x):
        if x > 0:
            h.value = x
        return x

    assert both(Holder(), np.float64(-4.0)) == 4.0
    with pytest.raises(ag.errors.StagingError, match="h.value"):
        one(Holder(), np.float64(1.0))


def test_a_nested_chain_and_python_mode_stay_exact():
    class Stats:
        def __init__(self):
            self.count = 0

    class Model:
        def __init__(self):
            self.stats = Stats()

    def tally(model, values):
        for v in values:
            if v > 0:
                model.stats.count += 1
        return model.stats.count

    converted = ag.convert(tally)
    assert converted(Model(), [1, -2, 3]) == tally(Model(), [1, -2, 3]) == 2
    staged = ag.function(tally)
    assert staged(Model(), np.array([1.0, -2.0, 3.0])) == 2


SHARED = {"v": 0.0}


def nested_local(x):
    s = {"v": 0.0}
    if x > 0:
        if x > 1:
            s["v"] = x
        else:
            s["v"] = -x
    else:
        s["v"] = 1.0
    return s["v"]


def on_a_global(x):
    if x > 0:
        SHARED["v"] = x
    else:
        SHARED["v"] = -x
    return SHARED["v"]


def test_a_composite_on_a_local_is_carried_through_its_roots_cell():
    code = str(ag.to_code(nested_local))
    assert "get_state" not in code and "value_or_undefined" not in code
    assert "nonlocal s" in code  # the outer branch's helper closes over s for the inner statement's names
    staged = ag.function(nested_local)
    for x in (2.0, 0.5, -3.0):
        assert staged(np.float64(x)) == nested_local(x)
    assert ag.convert(nested_local)(0.5) == -0.5


def test_a_composite_on_a_global_keeps_its_own_state_functions():
    code = str(ag.to_code(on_a_global))
    assert "get_state" in code and "value_or_undefined(lambda: SHARED['v']" in code
    staged = ag.function(on_a_global)
    assert staged(np.float64(-2.0)) == 2.0

