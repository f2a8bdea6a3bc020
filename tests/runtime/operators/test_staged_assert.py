"""assert on a Tensor: checked when the graph runs, naming the user's line."""

from __future__ import annotations

import numpy as np
import pytest

from runtime import operators as ag__
from runtime.ir.errors import InvalidArgumentError, StagingError
from tests.runtime.operators import graphs
from tests.runtime.operators.graphs import trace


def positive_sqrt(x):
    ag__.assert_stmt(x >= 0, lambda: "x must be non-negative")  # <- assert
    return np.sqrt(x)


def test_staged_assert_fails_at_run_time_with_the_message_and_line():
    f = trace(positive_sqrt, (np.float64, ()))
    assert f(np.float64(4.0)) == 2.0
    with pytest.raises(InvalidArgumentError) as info:
        f(np.float64(-1.0))
    print(info.value)
    assert "x must be non-negative" in str(info.value)
    assert graphs.line_of(__file__, "# <- assert") in str(info.value)


def test_staged_assert_without_message_names_the_line():
    def f(x):
        ag__.assert_stmt(x > 0)  # <- bare assert
        return x

    g = trace(f, (np.int64, ()))
    with pytest.raises(InvalidArgumentError) as info:
        g(np.int64(0))
    assert graphs.line_of(__file__, "# <- bare assert") in str(info.value)


def test_python_assert_is_python():
    ag__.assert_stmt(True, lambda: "never")
    with pytest.raises(AssertionError, match="boom"):
        ag__.assert_stmt(False, lambda: "boom")


@pytest.mark.parametrize("message", [
    lambda x: x, lambda x: ("negative value", x[0], None), lambda x: {"first": x[0] * 2, "n": 3},
    lambda x: ["no tensor", 1.5],
])
def test_tensors_in_the_message_show_their_run_time_values(message):
    def f(x):
        ag__.assert_stmt(x[0] > 0, lambda: message(x))
        return x

    x = np.array([-1.5, 2.0])
    for run in (trace(f, (np.float64, (2,))), trace(f, (np.float64, (None,)))):
        with pytest.raises(InvalidArgumentError) as info:
            run(x)
        first_line = str(info.value).splitlines()[0]
        assert first_line.endswith(f": {message(x)}")  # what the unconverted assert shows


def all_positive(x):
    ag__.assert_stmt(x > 0, lambda: "x must be positive")  # <- vector assert
    return x


def test_an_assert_of_several_values_is_refused_while_tracing():
    with pytest.raises(StagingError, match="condition of a tensor-dependent assert is a bool\\[2\\] Tensor") as info:
        trace(all_positive, (np.float64, (2,)))
    assert graphs.line_of(__file__, "# <- vector assert") in str(info.value)


def test_an_assert_of_unknown_length_tests_one_truth_value_as_python_does():
    f = trace(all_positive, (np.float64, (None,)))
    np.testing.assert_array_equal(f(np.array([2.0])), [2.0])
    with pytest.raises(InvalidArgumentError, match="x must be positive"):
        f(np.array([-2.0]))
    for several in (np.array([1.0, 2.0]), np.array([])):  # NumPy's ValueError, not np.all
        with pytest.raises(ValueError, match="truth value") as info:
            f(several)
        assert not isinstance(info.value, InvalidArgumentError)


@pytest.mark.parametrize(("source", "says"), [
    (lambda x: ag__.and_(x, lambda: x), "the left operand of a tensor-dependent and is an int64[3] Tensor"),
    (lambda x: ag__.or_(x, lambda: x), "np.logical_or"),
    (lambda x: ag__.if_exp(x > 0, lambda: x, lambda: -x, "x if x > 0 else -x"), "np.where"),
])
def test_and_or_and_conditional_expressions_of_several_values_name_their_construct(source, says):
    with pytest.raises(StagingError, match="Python tests one truth value") as info:
        trace(source, (np.int64, (3,)))
    assert says in str(info.value)
