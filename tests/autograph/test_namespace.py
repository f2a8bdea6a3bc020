"""namespace: the ag__ object holds every operator and converted_call."""

import runtime.operators as operators
from autograph.converted_call import AG, converted_call
from autograph.namespace import build_namespace


def test_operators_and_converted_call():
    for name in operators.__all__:
        assert getattr(AG, name) is getattr(operators, name)
    assert AG.converted_call is converted_call
    assert not hasattr(AG, "ld")
    assert build_namespace(converted_call) is not AG
