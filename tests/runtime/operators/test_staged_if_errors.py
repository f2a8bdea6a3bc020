"""What a staged if or conditional expression refuses.

Each error names the variable, the user's line and the fix.
"""

from __future__ import annotations

import numpy as np
import pytest

from runtime import operators as ag__
from runtime.ir.errors import StagingError
from tests.runtime.operators import graphs
from tests.runtime.operators.graphs import SCALAR_F, SCALAR_I, trace


def line_of(marker: str) -> str:
    return graphs.line_of(__file__, marker)


def only_in_true_branch(x):
    y = ag__.Undefined("y")

    def get_state():
        return (y,)

    def set_state(values):
        nonlocal y
        (y,) = values

    def if_body():
        nonlocal y
        y = x

    def else_body():
        pass

    ag__.if_stmt(x > 0, if_body, else_body, ("y",), 1, get_state=get_state, set_state=set_state)  # <- only-true
    return y


def test_name_bound_in_one_branch_only_is_an_error_naming_the_line():
    with pytest.raises(StagingError) as info:
        trace(only_in_true_branch, SCALAR_I)
    message = str(info.value)
    print(message)
    assert "'y' is defined only in the true branch of a tensor-dependent if" in message
    assert line_of("# <- only-true") in message
    assert "Initialise 'y' before the if" in message


def branch_function(values_true, values_false, names):
    def f(x):
        state = list(values_true(x)) and [ag__.Undefined(n) for n in names]

        def get_state():
            return tuple(state)

        def set_state(values):
            state[:] = values

        def if_body():
            state[:] = values_true(x)

        def else_body():
            state[:] = values_false(x)

        ag__.if_stmt(x > 0, if_body, else_body, names, len(names), get_state=get_state, set_state=set_state)  # <- mixed
        return x

    return f


@pytest.mark.parametrize("values_true, values_false, expected", [
    (lambda x: (x,), lambda x: (None,), "'y' is an int64[] Tensor in the true branch and None"),
    (lambda x: ((x, x),), lambda x: (x,), "'y' has a different structure in the two branches"),
    (lambda x: (x,), lambda x: (0.5,), "'y' is int64 in the true branch and float64 in the false"),
    (lambda x: ("a",), lambda x: ("b",), "'y' is str 'a' in the true branch and str 'b'"),
])
def test_mismatched_branches_are_errors_naming_the_variable_and_line(values_true, values_false, expected):
    with pytest.raises(StagingError) as info:
        trace(branch_function(values_true, values_false, ("y",)), SCALAR_I)
    message = str(info.value)
    print(message)
    assert expected in message
    assert line_of("# <- mixed") in message


def test_list_appended_in_one_branch_is_an_error_naming_the_list():
    def f(x):
        items = []

        def get_state():
            return (items,)

        def set_state(values):
            nonlocal items
            (items,) = values

        def if_body():
            nonlocal items
            items = ag__.list_append(items, x)

        def else_body():
            pass

        ag__.if_stmt(x > 0, if_body, else_body, ("items",), 1, get_state=get_state, set_state=set_state)
        return x

    with pytest.raises(StagingError, match="the Python list 'items' is changed in place"):
        trace(f, SCALAR_I)


@pytest.mark.parametrize("scalar_first", [False, True])
def test_python_scalar_against_a_tensor_takes_the_tensor_dtype(scalar_first):
    def relu(x):
        if scalar_first:
            return ag__.if_exp(x <= 0, lambda: 0, lambda: x, "x <= 0")
        return ag__.if_exp(x > 0, lambda: x, lambda: 0, "x > 0")

    f = trace(relu, (np.float32, ()))
    assert f(np.float32(2.5)) == 2.5 and f(np.float32(-1.0)) == 0.0
    assert f(np.float32(-1.0)).dtype == np.float32


def test_python_scalar_that_does_not_fit_the_tensor_dtype_is_an_error():
    with pytest.raises(StagingError, match="the value is int64 in the true branch and float64"):
        trace(lambda x: ag__.if_exp(x > 0, lambda: x, lambda: 0.5, "x > 0"), SCALAR_I)


def test_a_conditional_expression_names_its_value_not_its_condition():
    with pytest.raises(StagingError) as info:
        trace(lambda x: ag__.if_exp(x > 0, lambda: x, lambda: None, "x > 0"), SCALAR_I)
    message = str(info.value)
    assert message.startswith("the value is an int64[] Tensor in the true branch and None in the false branch")
    assert "'x > 0'" not in message


def reads_a_name_bound_later(x):
    def if_body():
        return x + late  # <- unbound read

    ag__.if_stmt(x > 0, if_body, None, (), 0)  # <- if of the unbound read
    late = 1.0
    return x + late


def test_a_name_unbound_in_a_traced_branch_is_told_as_the_rule():
    """Both branches are traced, so an unbound read Python would not reach for
    these inputs fails the trace: a StagingError naming the if and the read,
    not a NameError out of the branch function."""
    with pytest.raises(StagingError) as info:
        trace(reads_a_name_bound_later, SCALAR_F)
    lines = str(info.value).splitlines()
    assert lines[0].startswith(
        f"'late' is unbound where the true branch of the tensor-dependent if at "
        f"{line_of('# <- if of the unbound read')} reads it")
    assert lines[1].endswith("return x + late  # <- unbound read")
    assert lines[-1] == "Give 'late' a value before the if."
    assert isinstance(info.value.__cause__, NameError)



def reads_an_unbound_local(x):
    def if_body():
        if x is None:
            own = 1.0
        return x + own  # <- unbound local

    ag__.if_stmt(x > 0, if_body, None, (), 0)
    return x


def negates_a_placeholder(x):
    def else_body():
        w = ag__.Undefined("w")
        return ag__.not_(w)  # <- placeholder under not

    ag__.if_stmt(x < 0, None, else_body, (), 0)
    return x


def test_unbound_locals_and_placeholders_in_a_traced_branch_are_told_too():
    """An UnboundLocalError names the variable only in its message, and the one
    a placeholder raises comes from the runtime: the error still names the read."""
    with pytest.raises(StagingError, match="'own' is unbound where the true branch") as info:
        trace(reads_an_unbound_local, SCALAR_F)
    assert str(info.value).splitlines()[1].endswith("# <- unbound local")
    with pytest.raises(StagingError, match="'w' is unbound where the false branch") as info:
        trace(negates_a_placeholder, SCALAR_F)
    assert str(info.value).splitlines()[1].endswith("# <- placeholder under not")



def and_reads_a_name_bound_later(x):
    first = ag__.and_(x, lambda: late)  # <- and of the unbound read
    late = 1.0
    return first + late


def if_exp_reads_a_name_bound_later(x):
    first = ag__.if_exp(x > 0, lambda: late, lambda: x, "late if x > 0 else x")
    late = 1.0
    return first + late


def test_a_name_unbound_in_a_traced_operand_is_told_as_the_rule():
    """`x and y`, `y if c else x`: the operand Python skips for these inputs is traced too."""
    with pytest.raises(StagingError) as info:
        trace(and_reads_a_name_bound_later, SCALAR_F)
    assert str(info.value).startswith(
        f"'late' is unbound where the right operand of the tensor-dependent and at "
        f"{line_of('# <- and of the unbound read')} reads it")
    with pytest.raises(StagingError, match="'late' is unbound where the true branch of the "
                                           "tensor-dependent conditional expression"):
        trace(if_exp_reads_a_name_bound_later, SCALAR_F)


def adds_in_place_in_one_branch(x):
    a = np.zeros(2)

    def get_state():
        return (a,)

    def set_state(values):
        nonlocal a
        (a,) = values

    def else_body():
        nonlocal a
        a += 0.5

    ag__.if_stmt(x > 0, None, else_body, ("a",), 1, get_state=get_state, set_state=set_state)  # <- in place
    return a


def test_a_numpy_array_changed_in_place_in_a_branch_is_an_error_and_is_undone():
    """Both branches are traced: `a += 0.5` would change `a` whatever the condition."""
    with pytest.raises(StagingError) as info:
        trace(adds_in_place_in_one_branch, SCALAR_F)
    message = str(info.value)
    assert message.startswith("the NumPy array 'a' is changed in place inside a tensor-dependent if at "
                              f"{line_of('# <- in place')}")
    assert "a = a + 1 rather than a += 1" in message


def test_a_float32_float64_mismatch_names_the_int64_a_staged_loop_carries():
    def values_true(x):
        return (x.astype(np.float32),)

    def values_false(x):
        return (x.astype(np.float32) / x,)  # x: an int64 Tensor, as a counter `n = 0` is

    with pytest.raises(StagingError) as info:
        trace(branch_function(values_true, values_false, ("y",)), SCALAR_I)
    message = str(info.value)
    assert "'y' is float32 in the true branch and float64 in the false" in message
    assert "float32 / int64 is float64" in message and "np.asarray(n, np.float32)" in message


def test_other_dtype_mismatches_get_no_widening_hint():
    with pytest.raises(StagingError) as info:
        trace(branch_function(lambda x: (x,), lambda x: (0.5,), ("y",)), SCALAR_I)
    assert "staged loop carries" not in str(info.value)
