"""Builtins in converted code: staged on Tensors, the builtin otherwise."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

from runtime.ir.errors import StagingError
from runtime.operators.builtins import OVERRIDES
from tests.runtime.operators.graphs import trace


@pytest.mark.parametrize("builtin, args", [
    (len, ([1, 2, 3],)), (range, (2, 9, 3)), (abs, (-4,)), (int, ("12",)), (int, ("ff", 16)),
    (float, ("1.5",)), (bool, ([],)), (min, (3, 1, 2)), (max, ([4, 7],)), (min, ([], )),
])
def test_falls_back_to_the_builtin_without_staged_arguments(builtin, args):
    override = OVERRIDES[builtin]
    try:
        expected = builtin(*args)
    except ValueError as exc:
        with pytest.raises(type(exc)):
            override(*args)
        return
    assert override(*args) == expected


def test_enumerate_and_zip_fall_back():
    assert list(OVERRIDES[enumerate]("ab", 1)) == [(1, "a"), (2, "b")]
    assert list(OVERRIDES[zip]([1, 2], "ab")) == [(1, "a"), (2, "b")]


def test_print_is_not_overridden():
    assert builtins.print not in OVERRIDES


def test_casts_abs_min_max_len_on_tensors():
    def f(x, v):
        return (
            OVERRIDES[int](x), OVERRIDES[float](OVERRIDES[abs](v)), OVERRIDES[bool](x),
            OVERRIDES[min](x, 2.5), OVERRIDES[max](v), OVERRIDES[len](v),
        )

    g = trace(f, (np.float64, ()), (np.int64, (None,)))
    i, fl, b, lo, hi, n = g(np.float64(3.7), np.array([-5, 2, 4]))
    assert (i, i.dtype) == (3, np.int64)
    np.testing.assert_array_equal(fl, [5.0, 2.0, 4.0])
    assert fl.dtype == np.float64
    assert b and lo == 2.5 and hi == 4 and n == 3


def test_range_of_an_unknown_dimension_says_to_use_len():
    with pytest.raises(StagingError, match=r"range\(None\) gets None where a size is expected.*len\(x\)"):
        trace(lambda x: OVERRIDES[range](x.shape[0]), (np.float64, (None, 3)))
    with pytest.raises(TypeError):
        OVERRIDES[range](None)


def test_min_max_of_a_list_of_tensors_is_pairwise():
    def f(x):
        return OVERRIDES[max]([x[0], x[1], 2.5]), OVERRIDES[min]((x[1], x[0])), OVERRIDES[max]([x[2]])

    g = trace(f, (np.float64, (3,)))
    assert g(np.array([1.0, 7.0, -3.0])) == (7.0, 1.0, -3.0)
    assert g(np.array([1.0, 2.0, 0.0]))[0] == 2.5
    assert OVERRIDES[max]([1, 5, 2]) == 5
    with pytest.raises(ValueError):
        OVERRIDES[min]([])  # as the builtin
