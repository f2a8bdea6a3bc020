"""Undefined: the placeholder of a name not bound yet fails as reading that name fails."""

import pytest

from runtime.operators.undefined import Undefined


def _python_unbound_message() -> str:
    def read_before_binding():
        y = n  # noqa: F821, F841 - the read Python refuses
        n = 0  # noqa: F841

    with pytest.raises(UnboundLocalError) as info:
        read_before_binding()
    return str(info.value)


def test_the_placeholder_raises_the_running_pythons_own_unbound_local_message():
    expected = _python_unbound_message()
    for use in (bool, lambda u: u + 1, lambda u: u.shape, lambda u: u[0]):
        with pytest.raises(UnboundLocalError) as info:
            use(Undefined("n"))
        assert str(info.value) == expected
