"""What a staged if refuses in what its branches return, or raise: each error names the user's line."""

from __future__ import annotations

import numpy as np
import pytest

from runtime import operators as ag__
from runtime.ir.errors import StagingError
from tests.runtime.operators import graphs
from tests.runtime.operators.graphs import SCALAR_F, SCALAR_I, trace


def line_of(marker: str) -> str:
    return graphs.line_of(__file__, marker)


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
    ag__.if_stmt(x > 0, body, orelse, ("do_return", "retval_"), 2, get_state=get_state, set_state=set_state)

    def if_body_1():
        nonlocal do_return, retval_
        do_return = True
        retval_ = (-x, x)

    ag__.if_stmt(ag__.not_(do_return), if_body_1, None, ("do_return", "retval_"), 2, get_state=get_state, set_state=set_state)
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

    ag__.if_stmt(x > 0, if_body, else_body, ("retval_",), 1, get_state=get_state, set_state=set_state)  # line: pair or None
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

    ag__.if_stmt(x <= 0, if_body, None, (), 0)  # <- checked
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

        ag__.if_stmt(x > 0, if_body, None, (), 0)
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

    ag__.if_stmt(x > 0, if_body, else_body, ("retval_",), 1, get_state=get_state, set_state=set_state)
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

    ag__.if_stmt(x > 0, if_body, None, ("do_return", "retval_"), 2, get_state=get_state, set_state=set_state)  # <- text
    return x


def test_a_python_value_returned_from_one_branch_is_told_as_a_return():
    with pytest.raises(StagingError) as info:
        trace(returns_text_on_one_side, SCALAR_I)
    message = str(info.value)
    assert message.startswith("the function returns str 'positive' from only the true branch of a tensor-dependent if at ")
    assert line_of("# <- text") in message and "'retval_'" not in message and "Return a Tensor or a number" in message
