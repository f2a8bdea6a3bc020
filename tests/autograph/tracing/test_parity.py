"""check=True: the graph and the plain Python function must agree at every call."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph.tracing.parity import check_parity
from fixtures.diagnostics import accumulate as fixture

SCALE = 2.0


def test_float32_accumulation_disagrees():
    f = ag.function(fixture.accumulate, check=True)
    with pytest.raises(ag.errors.ParityError) as info:
        f(fixture.DATA)
    text = str(info.value)
    assert "graph:  np.float64(" in text and "python: np.float32(" in text
    assert "dtypes differ: graph float64, python float32" in text
    assert isinstance(info.value, ag.errors.AutographError)


def test_fixed_accumulator_agrees():
    f = ag.function(fixture.accumulate_fixed, check=True)
    result = f(fixture.DATA)
    assert result.dtype == np.float32
    assert result == pytest.approx(float(np.sum(fixture.DATA, dtype=np.float64)), rel=1e-4)


def test_stale_global_shows_first_differing_element():
    global SCALE

    @ag.function(check=True)
    def scaled(x):
        return x * SCALE

    x = np.arange(4.0)
    np.testing.assert_array_equal(scaled(x), x * 2.0)
    SCALE = 3.0
    try:
        with pytest.raises(ag.errors.ParityError, match=r"first difference in the result at index \(1,\): "
                           r"graph np.float64\(2.0\) \(float64\), python np.float64\(3.0\)"):
            scaled(x)
    finally:
        SCALE = 2.0


def test_check_never_takes_the_fast_call_and_copies_inputs():
    runs = []

    def bump(x):
        runs.append(1)
        x += 1  # in place: each side must get its own copy
        return x

    f = ag.function(bump, check=True)
    x = np.zeros(3)
    for _ in range(5):
        np.testing.assert_array_equal(f(x), np.ones(3))
    assert len(runs) == 5 + 1  # five Python runs beside the graph, one trace
    assert type(f).__call__ is type(ag.function(bump)).__call__  # still the general call


def test_tolerance_and_structure():
    check_parity("f", np.float32(1.0), np.float32(1.0 + 1e-7))
    check_parity("f", np.float64(1.0), 1.0 + 1e-13)
    check_parity("f", np.int64(3), 3)  # a Python number comes back as a NumPy scalar
    check_parity("f", (np.ones(2), None), (np.ones(2), None))
    check_parity("f", np.array([np.nan]), np.array([np.nan]))
    with pytest.raises(ag.errors.ParityError, match="beyond rtol=1e-07"):
        check_parity("f", np.float64(1.0), 1.0 + 1e-5)
    with pytest.raises(ag.errors.ParityError, match="structures differ"):
        check_parity("f", (1, 2), [1, 2])
    with pytest.raises(ag.errors.ParityError, match="shapes differ"):
        check_parity("f", np.ones(2), np.ones(3))
    with pytest.raises(ag.errors.ParityError, match=r"output leaf 1 at index \(1, 0\): graph np.int64\(5\)"):
        check_parity("f", (np.ones(2), np.array([[1], [5]])), (np.ones(2), np.array([[1], [4]])))


def test_methods_check_too():
    class Model:
        def __init__(self):
            self.w = 2.0

        @ag.function(check=True)
        def __call__(self, x):
            return x * self.w

    m = Model()
    assert m(np.float64(3)) == 6.0
    m.w = 5.0
    with pytest.raises(ag.errors.ParityError):
        m(np.float64(3))


@settings(max_examples=50, deadline=None)
@given(
    st.sampled_from([np.float32, np.float64, np.int64]),
    st.lists(st.integers(1, 4), min_size=0, max_size=3),
    st.data(),
)
def test_parity_finds_the_first_changed_element(dtype, shape, data):
    a = np.array(np.arange(int(np.prod(shape))).reshape(shape) % 7, dtype=dtype)
    check_parity("f", a, a.copy())
    if a.size == 0:
        return
    flat = data.draw(st.integers(0, a.size - 1))
    b = a.copy()
    b.flat[flat] += 1
    index = np.unravel_index(flat, a.shape)
    with pytest.raises(ag.errors.ParityError) as info:
        check_parity("f", a, b)
    where = f" at index {tuple(int(i) for i in index)}" if a.ndim else ""
    assert f"first difference in the result{where}:" in str(info.value)
