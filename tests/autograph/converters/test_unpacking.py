"""Unpacking a staged Tensor of known length (`a, b = t`) stages its rows; otherwise a StagingError."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from autograph.errors import StagingError


def swap_and_split(t, m):
    a, b = t[:2]
    first, *rest = t
    (p, q), r = m[:2]
    c, d = b, a
    return a * 2 + b, first, rest, p + q + r[0], c - d


def in_a_loop(points):
    total = np.zeros(())
    for i in range(len(points)):
        px, py = points[i]
        total = total + px * py
    return total


def pair(t):
    a, b = t
    return a - b


def test_converted_code_passes_the_value_through_unpack():
    code = ag.to_code(swap_and_split)
    assert "a, b = ag__.unpack(t[:2], 2)" in code
    assert "first, *rest = ag__.unpack(t, (None, '*'))" in code
    assert "(p, q), r = ag__.unpack(m[:2], ((None, None), None))" in code
    assert "c, d = (b, a)" in code


@pytest.mark.parametrize("n", [2, 3, 5])
def test_staged_unpacking_equals_python(n):
    t, m = np.arange(float(n)), np.arange(6.0).reshape(3, 2)
    staged, eager = ag.function(swap_and_split)(t, m), swap_and_split(t, m)
    assert staged[0] == eager[0] and staged[1] == eager[1] and staged[3] == eager[3] and staged[4] == eager[4]
    assert len(staged[2]) == n - 1 and all(a == b for a, b in zip(staged[2], eager[2]))


def test_unpacking_rows_in_a_staged_loop():
    points = np.arange(8.0).reshape(4, 2)
    assert ag.function(in_a_loop)(points) == in_a_loop(points)
    spec = ag.TensorSpec((None, 2), np.float64)
    assert ag.function(in_a_loop).get_concrete_function(spec)(points) == in_a_loop(points)


def test_wrong_or_unknown_lengths_name_the_line():
    line = pair.__code__.co_firstlineno + 1
    with pytest.raises(StagingError, match=rf"test_unpacking.py:{line}: cannot unpack a float64\[3\] Tensor into 2 names: it has 3 rows \(too many"):
        ag.function(pair)(np.ones(3))
    with pytest.raises(StagingError, match="it has 1 rows .too few"):
        ag.function(pair)(np.ones(1))
    with pytest.raises(StagingError, match=rf"{line}: .*first dimension is unknown"):
        ag.function(pair).get_concrete_function(ag.TensorSpec((None,), np.float64))
    with pytest.raises(StagingError, match="scalar Tensor into 2 names"):
        ag.function(pair)(np.float64(1))


def test_python_values_unpack_as_before():
    assert pair((3, 1)) == 2
    assert ag.function(pair)((np.float64(3), np.float64(1))) == 2
    with pytest.raises(ValueError, match="too many values to unpack"):
        ag.convert(pair)((1, 2, 3))
    assert ag.function(pair)(iter([5.0, 2.0])) == 3.0
