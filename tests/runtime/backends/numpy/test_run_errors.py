"""An error NumPy raises while a compiled graph runs names the user's line."""

import inspect

import numpy as np
import pytest

import autograph as ag


def _line_of(func, text: str) -> int:
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_a_numpy_error_keeps_its_type_and_gets_the_users_line():
    @ag.function
    def solve(a, b):
        c = a @ a
        x = np.linalg.solve(c, b)
        return x + 1

    np.testing.assert_allclose(solve(np.eye(2), np.ones(2)), [2.0, 2.0])
    with pytest.raises(np.linalg.LinAlgError) as caught:
        solve(np.zeros((2, 2)), np.ones(2))
    notes = caught.value.__notes__
    assert len(notes) == 1
    assert f"{__file__}:{_line_of(solve.python_function, 'np.linalg.solve')}" in notes[0]
    assert "x = np.linalg.solve(c, b)" in notes[0]


def test_an_error_in_a_py_function_names_the_py_function_call():
    def pick(values):
        return values[10]

    @ag.function
    def tenth(x):
        y = x * 2
        return ag.py_function(pick, [y], np.float64)

    with pytest.raises(IndexError) as caught:
        tenth(np.arange(3.0))
    (note,) = caught.value.__notes__
    assert f":{_line_of(tenth.python_function, 'ag.py_function')}" in note


def test_our_own_errors_are_left_as_they_are():
    @ag.function
    def positive(x):
        assert x > 0, "x must be positive"
        return x

    with pytest.raises(ag.errors.InvalidArgumentError, match="x must be positive") as caught:
        positive(np.float64(-1.0))
    assert not getattr(caught.value, "__notes__", [])


def test_a_write_whose_result_is_dropped_is_told_how_to_keep_it():
    @ag.function
    def dropped_writes(n):
        ta = ag.TensorArray(np.float64, size=2)
        for i in ag.range(n):
            ta.write(i, np.float64(1.0))  # the new TensorArray is dropped
        return ta.stack()

    with pytest.raises(ag.errors.InvalidArgumentError, match=r"element 0 was never written .*ta = ta.write\(i, value\)"):
        dropped_writes(np.int64(2))


def test_our_own_errors_that_do_not_say_where_get_the_users_line():
    @ag.function
    def half_written(x):
        ta = ag.TensorArray(np.float64, size=2)
        ta = ta.write(0, x)
        return ta.stack()

    with pytest.raises(ag.errors.InvalidArgumentError, match="element 1 was never written") as caught:
        half_written(np.float64(1.0))
    (note,) = caught.value.__notes__
    assert f"{__file__}:{_line_of(half_written.python_function, 'ta.stack()')}" in note
