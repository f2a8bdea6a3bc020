"""What a staged if or conditional expression refuses.

Each error names the variable, the user's line and the fix.
"""

from __future__ import annotations

import numpy as np
import pytest

from runtime import operators as ag__
from runtime.errors import StagingError
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

    ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ("y",), 1)  # <- only-true
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

        ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, names, len(names))  # <- mixed
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

        ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ("items",), 1)
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


def return_pair_on_one_side(x, side):
    """`if x > 0: return x, 2 * x` (or the same in the else branch), then `return -x, x`."""
    do_return = False
    retval_ = ag__.Undefined("retval_")

    def get_state():
        return (do_return, retval_)

    def set_state(values):
        nonlocal do_return, retval_
        do_return, retval_ = values

    def returns():
        nonlocal do_return, retval_
        do_return = True
        retval_ = (x, 2 * x)

    def nothing():
        pass

    body, orelse = (returns, nothing) if side else (nothing, returns)
    ag__.if_stmt(x > 0, body, orelse, get_state, set_state, ("do_return", "retval_"), 2)

    def if_body_1():
        nonlocal do_return, retval_
        do_return = True
        retval_ = (-x, x)

    ag__.if_stmt(ag__.not_(do_return), if_body_1, None, get_state, set_state, ("do_return", "retval_"), 2)
    return retval_


@pytest.mark.parametrize("side", [True, False])
def test_a_tuple_returned_in_one_branch_only(side):
    f = trace(lambda x: return_pair_on_one_side(x, side), SCALAR_I)
    assert f(np.int64(3)) == ((3, 6) if side else (-3, 3))
    assert f(np.int64(-3)) == ((3, -3) if side else (-3, -6))


def returns_pair_or_none(x):
    retval_ = ag__.Undefined("retval_")

    def get_state():
        return (retval_,)

    def set_state(values):
        nonlocal retval_
        (retval_,) = values

    def if_body():
        nonlocal retval_
        retval_ = (x, x)

    def else_body():
        nonlocal retval_
        retval_ = None

    ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ("retval_",), 1)  # line: pair or None
    return retval_


def test_returns_of_different_structures_are_told_as_returns():
    with pytest.raises(StagingError) as info:
        trace(returns_pair_or_none, SCALAR_I)
    message = str(info.value)
    assert message.startswith(
        "the function returns values of different structures in the two branches of a "
        "tensor-dependent if ((*, *) in the true branch, * in the false branch) at "
    )
    assert line_of("line: pair or None") in message and "'retval_'" not in message


def checked_log(x):
    def if_body():
        raise ValueError("x must be positive")  # <- raise

    ag__.if_stmt(x <= 0, if_body, None, None, None, (), 0)  # <- checked
    return np.log(x)


def test_a_raise_in_a_staged_branch_says_it_happens_at_every_trace():
    with pytest.raises(StagingError) as info:
        trace(checked_log, SCALAR_F)
    lines = str(info.value).splitlines()
    assert lines[0].startswith(
        f"the true branch of the tensor-dependent if at {line_of('# <- checked')} raises "
        f"ValueError('x must be positive') while it is traced"
    )
    assert lines[1].endswith('raise ValueError("x must be positive")  # <- raise')
    assert "assert not <condition>" in lines[-1]
    assert isinstance(info.value.__cause__, ValueError)


def test_other_errors_in_a_staged_branch_pass_unchanged():
    def f(x):
        def if_body():
            return x.no_such_attribute

        ag__.if_stmt(x > 0, if_body, None, None, None, (), 0)
        return x

    with pytest.raises(AttributeError):
        trace(f, SCALAR_F)


def returns_int_or_float(x):
    retval_ = ag__.Undefined("retval_")

    def get_state():
        return (retval_,)

    def set_state(values):
        nonlocal retval_
        (retval_,) = values

    def if_body():
        nonlocal retval_
        retval_ = np.int64(1)

    def else_body():
        nonlocal retval_
        retval_ = 0.5

    ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ("retval_",), 1)
    return retval_


def test_returns_of_different_dtypes_are_told_as_returns():
    with pytest.raises(StagingError, match=r"^the function returns int64 in the true branch and float64 in the false"):
        trace(returns_int_or_float, SCALAR_I)


def returns_text_on_one_side(x):
    """`if x > 0: return "positive"`, and the function goes on."""
    do_return, retval_ = False, ag__.Undefined("retval_")

    def if_body():
        nonlocal do_return, retval_
        retval_ = "positive"
        do_return = True

    def get_state():
        return (do_return, retval_)

    def set_state(values):
        nonlocal do_return, retval_
        do_return, retval_ = values

    ag__.if_stmt(x > 0, if_body, None, get_state, set_state, ("do_return", "retval_"), 2)  # <- text
    return x


def test_a_python_value_returned_from_one_branch_is_told_as_a_return():
    with pytest.raises(StagingError) as info:
        trace(returns_text_on_one_side, SCALAR_I)
    message = str(info.value)
    assert message.startswith("the function returns str 'positive' from only the true branch of a tensor-dependent if at ")
    assert line_of("# <- text") in message and "'retval_'" not in message and "Return a Tensor or a number" in message


def test_a_conditional_expression_names_its_value_not_its_condition():
    with pytest.raises(StagingError) as info:
        trace(lambda x: ag__.if_exp(x > 0, lambda: x, lambda: None, "x > 0"), SCALAR_I)
    message = str(info.value)
    assert message.startswith("the value is an int64[] Tensor in the true branch and None in the false branch")
    assert "'x > 0'" not in message


def reads_a_name_bound_later(x):
    def if_body():
        return x + late  # <- unbound read

    ag__.if_stmt(x > 0, if_body, None, None, None, (), 0)  # <- if of the unbound read
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

    ag__.if_stmt(x > 0, if_body, None, None, None, (), 0)
    return x


def negates_a_placeholder(x):
    def else_body():
        w = ag__.Undefined("w")
        return ag__.not_(w)  # <- placeholder under not

    ag__.if_stmt(x < 0, None, else_body, None, None, (), 0)
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

    ag__.if_stmt(x > 0, None, else_body, get_state, set_state, ("a",), 1)  # <- in place
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
