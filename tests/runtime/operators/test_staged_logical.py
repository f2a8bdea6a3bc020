"""and/or/not on Tensors: a cond keeps Python's short circuit."""

from __future__ import annotations

import numpy as np
import pytest

from runtime import operators as ag__
from runtime.ir.errors import StagingError
from tests.runtime.operators.graphs import line_of, trace


def in_bounds_and_positive(xs, i):
    return ag__.and_(i < np.shape(xs)[0], lambda: xs[np.minimum(i, np.shape(xs)[0] - 1)] > 0)


def test_and_evaluates_the_right_side_only_when_needed():
    f = trace(in_bounds_and_positive, (np.int64, (None,)), (np.int64, ()))
    xs = np.array([1, -2, 3])
    assert [bool(f(xs, np.int64(i))) for i in range(5)] == [True, False, True, False, False]
    assert [n.op for n in f.graph.nodes].count("cond") == 1


def test_or_and_not():
    def either(a, b):
        return ag__.or_(a > 0, lambda: ag__.not_(b > 0))

    f = trace(either, (np.int64, ()), (np.int64, ()))
    table = {(a, b): bool(f(np.int64(a), np.int64(b))) for a in (-1, 1) for b in (-1, 1)}
    assert table == {(a, b): (a > 0) or not (b > 0) for a in (-1, 1) for b in (-1, 1)}


def test_python_bool_on_the_right_of_a_tensor():
    def f(a):
        return ag__.and_(a > 0, lambda: True)

    g = trace(f, (np.int64, ()))
    assert bool(g(np.int64(3))) and not bool(g(np.int64(-3)))


def test_python_operands_keep_python_semantics():
    assert ag__.and_(0, lambda: 1 / 0) == 0
    assert ag__.or_("", lambda: [1]) == [1]
    assert ag__.not_([]) is True


def and_of_a_bool_and_an_int(x, n):
    return ag__.and_(x > 0, lambda: n)  # <- and of two dtypes


def or_of_a_bool_and_none(x):
    return ag__.or_(x > 0, lambda: None)


def test_operands_of_two_dtypes_are_named_as_operands_of_the_and():
    """`(x > 0) and n` is one cond: its message speaks of operands, not branches."""
    with pytest.raises(StagingError) as info:
        trace(and_of_a_bool_and_an_int, (np.float64, ()), (np.int64, ()))
    message = str(info.value)
    assert message.startswith(
        "the operands of a tensor-dependent 'and' have different dtypes: int64 in the right "
        f"operand, bool in the left operand at {line_of(__file__, '# <- and of two dtypes')}")
    assert "(x > 0) and (n != 0)" in message and "conditional expression" not in message
    with pytest.raises(StagingError, match="in the left operand and None in the right operand of "
                                           "a tensor-dependent 'or'"):
        trace(or_of_a_bool_and_none, (np.float64, ()))
