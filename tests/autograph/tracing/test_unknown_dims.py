"""A dimension that is None in a trace, used as a number: a StagingError naming the line (issue 21, item 12)."""

import numpy as np
import pytest

import autograph as ag
from autograph.errors import StagingError


def test_shape_arithmetic_on_a_relaxed_dimension_names_the_line_and_the_fix():
    @ag.function(reduce_retracing=True)
    def drop_last(x):
        return x[: x.shape[0] - 1]

    np.testing.assert_array_equal(drop_last(np.arange(3.0)), [0.0, 1.0])
    with pytest.raises(StagingError) as info:
        drop_last(np.arange(4.0))  # the second shape relaxes the dimension to None
    message = str(info.value)
    assert "test_unknown_dims.py" in message
    assert "x[: x.shape[0] - 1]" in message
    assert "len(x)" in message and "np.shape(x)" in message
    assert "'NoneType' and 'int'" in message  # Python's own words stay, after ours
    assert not isinstance(info.value, TypeError)


def test_the_suggested_fixes_stage_on_relaxed_shapes():
    @ag.function(reduce_retracing=True)
    def by_len(x):
        return x[: len(x) - 1]

    @ag.function(reduce_retracing=True)
    def by_np_shape(x):
        return x[: np.shape(x)[0] - 1] * np.size(x)

    for n in (3, 4, 5, 6):
        np.testing.assert_array_equal(by_len(np.arange(float(n))), np.arange(float(n - 1)))
        np.testing.assert_array_equal(by_np_shape(np.arange(float(n))), np.arange(float(n - 1)) * n)
    assert by_len.experimental_get_tracing_count() == 2


def test_a_none_dimension_inside_a_staged_branch_of_an_input_signature():
    @ag.function(input_signature=[ag.TensorSpec([None], np.float32)])
    def scaled(x):
        s = np.float32(0.0)
        if x[0] > 0:
            s = s + x.shape[0] * 2
        return s

    with pytest.raises(StagingError, match=r"s = s \+ x.shape\[0\] \* 2"):
        scaled(np.ones(4, np.float32))


def test_unknown_dimensions_still_read_as_none():
    @ag.function(input_signature=[ag.TensorSpec([None, 3], np.float32)])
    def describe(x):
        assert x.shape == (None, 3)
        assert x.shape[0] is None and None in x.shape
        return x

    describe(np.zeros((2, 3), np.float32))


def test_other_type_errors_keep_their_message():
    @ag.function(reduce_retracing=True)
    def bad(x, n):
        return x + len(n)  # len(None): no shape on the line

    with pytest.raises(TypeError, match="NoneType"):
        bad(np.zeros(2), None)


def test_a_size_unpacked_from_the_shape_a_line_before():
    @ag.function(input_signature=[ag.TensorSpec([None, 2], np.float64)])
    def last_rows(x):
        n, m = x.shape
        start = n - 1
        return x[start:]

    with pytest.raises(StagingError, match=r"start = n - 1"):
        last_rows(np.ones((3, 2)))


def test_a_tensor_times_an_unknown_size_is_refused_while_tracing_not_when_the_graph_runs():
    @ag.function(reduce_retracing=True)
    def scale(x):
        n = x.shape[0]
        return x * n

    scale(np.ones(3))
    with pytest.raises(StagingError, match=r"return x \* n"):
        scale(np.ones(4))


def test_arithmetic_with_none_is_pythons_type_error_and_comparison_stays_elementwise():
    @ag.function
    def bad(x):
        return x + None

    with pytest.raises(TypeError, match="NoneType"):
        bad(np.ones(2))

    @ag.function
    def is_none(x):
        return x == None  # noqa: E711 - NumPy's elementwise comparison

    np.testing.assert_array_equal(is_none(np.ones(2)), [False, False])
