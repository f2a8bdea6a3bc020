"""Guide section "Obtaining concrete functions"."""

import numpy as np
import pytest

import autograph as ag


@ag.function
def double(a):
    print("Tracing with", a)
    return a + a


@ag.function
def pow(a, b):  # noqa: A001 - the guide's name
    return a**b


def test_get_concrete_function_then_call(capsys):
    print("Obtaining concrete trace")
    double_strings = double.get_concrete_function(np.str_("a"))
    print("Executing traced function")
    print(double_strings(np.str_("a")))
    print(double_strings(a=np.str_("b")))
    assert capsys.readouterr().out == (
        "Obtaining concrete trace\n"
        'Tracing with Tensor("a:0", shape=(), dtype=string)\n'
        "Executing traced function\n"
        "aa\n"
        "bb\n"
    )


def test_get_concrete_function_from_a_spec(capsys):
    double_strings = double.get_concrete_function(ag.TensorSpec(shape=[], dtype=np.str_("c").dtype))
    print(double_strings(np.str_("c")))
    assert capsys.readouterr().out.endswith("cc\n")


def test_printing_a_concrete_function(capsys):
    double_strings = double.get_concrete_function(np.str_("a"))
    print(double_strings)
    assert capsys.readouterr().out.endswith(
        "ConcreteFunction double(a)\n"
        "  Args:\n"
        "    a: string Tensor, shape=()\n"
        "  Returns:\n"
        "    string Tensor, shape=()\n"
    )


def test_structured_input_signature():
    double_ints = double.get_concrete_function(np.int32(1))
    assert double_ints.structured_input_signature == ((ag.TensorSpec([], np.int32, "a"),), {})


def test_incompatible_types_raise_invalid_argument():
    double_strings = double.get_concrete_function(np.str_("a"))
    with pytest.raises(ag.errors.InvalidArgumentError):
        double_strings(np.int32(1))


def test_python_arguments_stay_bound(capsys):
    square = pow.get_concrete_function(a=ag.TensorSpec(None, np.float32), b=2)
    print(square)
    assert capsys.readouterr().out == (
        "ConcreteFunction pow(a, b=2)\n"
        "  Args:\n"
        "    a: float32 Tensor, shape=<unknown>\n"
        "  Returns:\n"
        "    float32 Tensor, shape=<unknown>\n"
    )
    assert square(np.float32(10.0)) == 100
    with pytest.raises(TypeError) as info:
        square(np.float32(10.0), b=3)
    assert str(info.value) == (
        "ConcreteFunction pow(a, b) was constructed with int value 2 in b, "
        "but was called with int value 3."
    )
