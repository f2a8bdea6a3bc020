"""`np.max(x) < c` lowered as `np.all(x < c)` on XLA (runtime/backends/jax/reduced_tests.py):
the same booleans as the NumPy backend for every x and c (NaN, infinities, signed zeros, integers,
float32), and the rewrite made only where it is exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

pytest.importorskip("jax")

import autograph as ag  # noqa: E402


def compared(x, c):
    """Every rewritten form, and the ones that must stay as they are."""
    return (
        np.max(x) < c, np.max(x) <= c, c > np.max(x), c >= np.max(x),
        np.min(x) > c, np.min(x) >= c, c < np.min(x), c <= np.min(x),
        np.amax(x) < c, x.max() < c, np.max(x, axis=None) <= c,
        np.max(x) > c, np.min(x) < c, c == np.max(x), np.max(x) < 1.5,
    )


NUMPY, XLA = ag.function(compared), ag.function(compared, jit_compile=True)
SPECIAL = st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5])


@settings(max_examples=60, deadline=None)
@given(
    x=hnp.arrays(st.sampled_from([np.float64, np.float32]), st.sampled_from([(1,), (4,), (2, 3)]),  # few traces
                 elements=st.one_of(SPECIAL, st.floats(-3, 3, width=32, allow_subnormal=False))),
    c=st.one_of(SPECIAL, st.floats(-3, 3, allow_subnormal=False)),  # XLA on CPU reads subnormals as 0
)
def test_floats_agree_with_numpy(x, c):
    assert XLA(x, np.float64(c)) == NUMPY(x, np.float64(c))
    assert XLA(x, np.float32(c)) == NUMPY(x, np.float32(c))


@settings(max_examples=30, deadline=None)
@given(x=hnp.arrays(np.int64, st.sampled_from([1, 4]), elements=st.integers(-2**62, 2**62)),
       c=st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_subnormal=False), st.sampled_from([np.nan, 2.0**62])))
def test_integers_against_floats_and_ints_agree_with_numpy(x, c):
    """An int64 x against a float c compares in float64: the rounded max is the max of the rounded."""
    c = np.float64(c) if isinstance(c, float) else np.int64(c)
    assert XLA(x, c) == NUMPY(x, c)


def lowered(fn, *args):
    return ag.function(fn, jit_compile=True).get_concrete_function(*args).lowered_text()


def test_the_loop_test_is_rewritten_and_the_others_are_not():
    x = np.array([0.5, 2.0])
    assert "stablehlo.maximum" not in lowered(lambda x: np.max(x) < 3.0, x)
    assert "stablehlo.and" in lowered(lambda x: np.max(x) < 3.0, x)
    assert "stablehlo.minimum" not in lowered(lambda x: 0.0 < np.min(x), x)
    # a NaN in x makes these False where any(...) could be True: kept as they are
    assert "stablehlo.maximum" in lowered(lambda x: np.max(x) > 3.0, x)
    assert "stablehlo.minimum" in lowered(lambda x: np.min(x) < 3.0, x)
    # not one scalar per array: kept
    assert "stablehlo.maximum" in lowered(lambda x: np.max(x, axis=1) < 3.0, np.ones((2, 3)))
    assert "stablehlo.maximum" in lowered(lambda x, c: np.max(x) < c, x, np.ones(2))


def test_an_empty_array_still_raises_as_numpy_does():
    def f(x):
        return np.max(x) < 3.0

    with pytest.raises(ValueError, match="zero-size array"):
        ag.function(f)(np.zeros(0))
    with pytest.raises(ag.errors.StagingError, match="zero-size array"):
        ag.function(f, jit_compile=True)(np.zeros(0))


def test_a_loop_until_a_bound_runs_as_on_numpy():
    def f(x):
        n = 0
        while np.max(x) < 3.0:
            x = x + 0.1 * np.tanh(x)
            n += 1
        return x, n

    x = np.random.default_rng(0).uniform(0.05, 0.1, size=50)
    expected, got = ag.function(f)(x), ag.function(f, jit_compile=True)(x)
    assert got[1] == expected[1] == 48
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)
