"""Guide section "AutoGraph transformations": what staged control flow refuses.

Each error names the user's file and line, the rule and the fix.
"""

from __future__ import annotations

import inspect
import sys

import numpy as np
import pytest

import autograph as ag


def line_of(fn, marker: str) -> str:
    """`file:line` of the line of `fn`'s source holding `marker`."""
    lines, start = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if marker in text:
            return f"{inspect.getsourcefile(fn)}:{start + offset}"
    raise AssertionError(marker)


# -- errors name the user's line -------------------------------------------------------
def test_name_defined_in_one_branch_only():
    @ag.function
    def f(x):
        if x > 0:  # <- if
            y = x
        return y

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.int64(1))
    print(info.value)
    assert "'y' is defined only in the true branch" in str(info.value)
    assert line_of(f.python_function, "# <- if") in str(info.value)


def test_the_if_of_a_comprehension_is_not_converted_and_the_error_says_so():
    @ag.function
    def positives(x):
        return [v for v in (x[0], x[1]) if v > 0]  # <- comprehension

    with pytest.raises(ag.errors.StagingError) as info:
        positives(np.array([1.0, -1.0]))
    message = str(info.value)
    assert line_of(positives.python_function, "# <- comprehension") in message
    if sys.version_info < (3, 12):  # later Pythons run comprehensions in the function's own frame
        assert "The `if` of a comprehension is not converted: write a for loop" in message


def test_a_name_deleted_in_one_branch():
    """Staged, both branches run; the one that deletes `y` leaves it Undefined, not a NameError
    of a generated function: fine while nothing reads `y` after the if, reported when something does."""

    @ag.function
    def dropped(x):
        y = x * 2
        if x > 0:
            del y
        return x

    @ag.function
    def read_after(x):
        y = x * 2
        if x > 0:  # <- del
            del y
        return y

    assert dropped(np.float64(1.0)) == 1.0 and dropped(np.float64(-1.0)) == -1.0
    with pytest.raises(ag.errors.StagingError) as info:
        read_after(np.float64(1.0))
    assert "'y' is defined only in the false branch" in str(info.value)
    assert line_of(read_after.python_function, "# <- del") in str(info.value)


def test_dtype_change_in_a_loop_suggests_the_initial_value():
    @ag.function
    def f(n):
        x = 0
        while x < n:  # <- while
            x = x + 0.5
        return x

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.float64(3))
    print(info.value)
    assert "x = 0.0" in str(info.value)
    assert line_of(f.python_function, "# <- while") in str(info.value)


def test_tensor_break_in_a_python_loop():
    @ag.function
    def f(x):
        for i in range(3):  # <- for
            x = x + i
            if x > 10:
                break
        return x

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.int64(1))
    print(info.value)
    assert "ag.range" in str(info.value)
    assert line_of(f.python_function, "# <- for") in str(info.value)


def test_staged_assert_fails_when_the_graph_runs():
    @ag.function
    def f(x):
        assert x > 0, "x must be positive"  # <- assert
        return x

    assert f(np.int64(2)) == 2
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        f(np.int64(-2))
    print(info.value)
    assert "x must be positive" in str(info.value)
    assert line_of(f.python_function, "# <- assert") in str(info.value)


@ag.function
def last_square(n):
    for i in ag.range(n):  # <- first bound
        y = i * i
    return y


def test_name_first_bound_in_a_staged_loop_needs_one_iteration():
    assert last_square(np.int64(4)) == 9
    with pytest.raises(ag.errors.InvalidArgumentError) as info:
        last_square(np.int64(0))
    print(info.value)
    assert "'y' is first bound inside the for loop" in str(info.value)
    assert line_of(last_square.python_function, "# <- first bound") in str(info.value)


def test_branches_with_different_structures_or_none():
    @ag.function
    def structures(x):
        if x > 0:  # <- structures
            r = (x, x)
        else:
            r = x
        return r

    @ag.function
    def none_on_one_side(x):
        r = None
        if x > 0:  # <- none
            r = x
        return r

    for f, marker, expected in ((structures, "# <- structures", "'r' has a different structure"),
                                (none_on_one_side, "# <- none", "'r' is an int64[] Tensor in the true branch and None")):
        with pytest.raises(ag.errors.StagingError) as info:
            f(np.int64(1))
        print(info.value)
        assert expected in str(info.value)
        assert line_of(f.python_function, marker) in str(info.value)


def test_appending_strings_in_a_staged_loop_names_the_list():
    @ag.function
    def f(xs):
        out = []
        for _x in xs:  # <- append
            out.append("a")
        return xs

    with pytest.raises(ag.errors.StagingError) as info:
        f(np.array([1]))
    assert "the list 'out' is appended str values inside a staged loop" in str(info.value)
    assert line_of(f.python_function, "# <- append") in str(info.value)


def test_a_tensor_tested_with_in_against_a_python_list_points_to_np_isin():
    @ag.function
    def allowed(x):
        if x not in [1, 2, 3]:  # <- in
            return 0
        return 1

    with pytest.raises(ag.errors.StagingError) as info:
        allowed(np.int64(3))
    message = str(info.value)
    assert line_of(allowed.python_function, "# <- in") in message
    assert "`in` and `not in` compare a Tensor with each item" in message
    assert "np.isin(x, items)" in message

    @ag.function
    def fixed(x):
        if not np.isin(x, [1, 2, 3]):
            return 0
        return 1

    assert fixed(np.int64(3)) == 1 and fixed(np.int64(4)) == 0


def test_a_tensor_tested_with_in_against_a_set_is_a_type_error_pointing_to_np_isin():
    # hashing by identity would make `x in {1, 2, 3}` False whatever x holds when the graph runs
    @ag.function
    def allowed(x):
        return x in {1, 2, 3}  # <- in

    with pytest.raises(TypeError) as info:
        allowed(np.int64(3))
    message = str(info.value)
    assert "was used as a Python set member or dict key" in message
    assert line_of(allowed.python_function, "# <- in") in message
    assert "np.isin(x, items)" in message


def test_a_tensor_as_a_dict_key_is_a_type_error_that_says_what_to_key_by():
    @ag.function
    def table(x):
        return {x: 1}  # <- key

    with pytest.raises(TypeError) as info:
        table(np.int64(3))
    message = str(info.value)
    assert line_of(table.python_function, "# <- key") in message
    assert "by id(t) for the Tensor object itself" in message


def test_a_match_on_a_tensor_says_match_is_not_converted():
    @ag.function
    def code(x):
        match x:  # <- match
            case 0:
                return 10
            case _:
                return 20

    with pytest.raises(ag.errors.StagingError) as info:
        code(np.int64(1))
    message = str(info.value)
    assert line_of(code.python_function, "# <- match") in message
    assert "A match statement is not converted" in message and "if/elif" in message
    assert code(0) == 10 and code(1) == 20  # on Python values: as Python


def test_a_comprehension_over_a_tensor_says_comprehensions_are_not_converted():
    @ag.function
    def doubled(x):
        return [v * 2 for v in x]  # <- comprehension

    with pytest.raises(ag.errors.StagingError) as info:
        doubled(np.ones(3))
    message = str(info.value)
    assert line_of(doubled.python_function, "# <- comprehension") in message
    assert "A comprehension is not converted: write it as a for loop" in message

    @ag.function(autograph=False)
    def doubled_unconverted(x):
        return [v * 2 for v in x]

    with pytest.raises(ag.errors.StagingError) as info:
        doubled_unconverted(np.ones(3))
    assert "would be staged" not in str(info.value)  # conversion would not stage it either
