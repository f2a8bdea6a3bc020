"""Calls left unconverted: strict=True refuses those that may hide a fallback."""

import numpy as np
import pytest

import autograph as ag
from fixtures.diagnostics import fallbacks


def test_unconverted_helper_with_a_loop_traces_by_default():
    f = ag.function(fallbacks.uses_helper)
    assert f(np.int64(30)) == 11


def test_strict_refuses_an_unconverted_helper_with_control_flow():
    f = ag.function(fallbacks.uses_helper, strict=True)
    with pytest.raises(ag.errors.StagingError) as info:
        f(np.int64(30))
    text = str(info.value)
    assert "clipped_helper is called unconverted (marked do_not_convert)" in text
    assert f"control flow at {fallbacks.__file__}:12" in text
    assert "return clipped_helper(x) + 1" in text  # the calling line
    assert "strict=True" in text


def test_strict_convert_refuses_it_too():
    converted = ag.convert(fallbacks.uses_helper, strict=True)
    assert converted(30) == 11  # plain Python values: no trace, nothing to refuse
    with pytest.raises(ag.errors.StagingError, match="clipped_helper"):
        ag.function(converted)(np.int64(30))


def test_a_function_without_source_runs_as_python_unless_strict():
    assert ag.function(fallbacks.uses_no_source)(np.int64(2)) == 5
    with pytest.raises(ag.errors.StagingError, match="no_source could not be converted"):
        ag.function(fallbacks.uses_no_source, strict=True)(np.int64(2))


def test_python_mode_calls_helpers_as_before():
    assert ag.convert(fallbacks.uses_helper)(30) == 11
    assert ag.convert(fallbacks.uses_no_source)(2) == 5


def test_strict_refuses_staged_control_flow_in_a_with_block():
    f = ag.function(fallbacks.staged_in_with, strict=True)
    with pytest.raises(ag.errors.StagingError) as info:
        f(np.int64(1))
    text = str(info.value)
    assert "inside the with block at line 22" in text
    assert "if x > 0:" in text
    assert "strict=True" in text
