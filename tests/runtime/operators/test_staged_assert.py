"""assert on a Tensor: checked when the graph runs, naming the user's line."""

from __future__ import annotations

import numpy as np
import pytest

from runtime import operators as ag__
from runtime.errors import InvalidArgumentError
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
