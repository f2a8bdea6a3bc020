"""A Function with an input_signature, called inside another trace, checks its arguments."""

import numpy as np
import pytest

import autograph as ag


@ag.function(input_signature=[ag.TensorSpec(shape=(None,), dtype=np.float32)])
def double(x):
    return x * 2


def test_a_fitting_staged_tensor_is_inlined():
    @ag.function
    def outer(x):
        return double(x) + 1

    np.testing.assert_allclose(outer(np.array([1.0, 2.0], np.float32)), [3.0, 5.0])
    assert outer.get_concrete_function(np.zeros(2, np.float32)).graph is not None


def test_a_staged_tensor_of_another_dtype_or_rank_is_refused():
    @ag.function
    def wrong_dtype(x):
        return double(x)

    @ag.function
    def wrong_rank(x):
        return double(x)

    with pytest.raises(ValueError, match="staged float64 tensor of shape \\(2,\\), which does not fit"):
        wrong_dtype(np.array([1.0, 2.0]))  # float64
    with pytest.raises(ValueError, match="does not fit"):
        wrong_rank(np.ones((2, 2), np.float32))


def test_python_values_take_the_signature_dtype():
    @ag.function
    def outer():
        return double([1.0, 2.0])

    result = outer()
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, [2.0, 4.0])
