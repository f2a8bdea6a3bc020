import numpy as np
import pytest

import autograph as ag
from autograph.errors import InvalidArgumentError


@ag.function(autograph=False)
def double(a):
    return a + a


@ag.function(autograph=False)
def power(a, b):
    return a**b


def test_str_shows_the_signature():
    cf = double.get_concrete_function(np.int64(1))
    assert str(cf) == (
        "ConcreteFunction double(a)\n"
        "  Args:\n"
        "    a: int64 Tensor, shape=()\n"
        "  Returns:\n"
        "    int64 Tensor, shape=()"
    )


def test_bound_python_arguments_and_unknown_shapes():
    square = power.get_concrete_function(a=ag.TensorSpec(None, np.float32), b=2)
    assert str(square) == (
        "ConcreteFunction pow(a, b=2)\n"
        "  Args:\n"
        "    a: float32 Tensor, shape=<unknown>\n"
        "  Returns:\n"
        "    float32 Tensor, shape=<unknown>"
    ).replace("pow(", "power(")
    assert square(np.float32(10.0)) == 100
    np.testing.assert_array_equal(square(np.float32([1, 2])), [1, 4])
    assert square(np.float32(3.0), b=2) == 9
    with pytest.raises(TypeError) as info:
        square(np.float32(10.0), b=3)
    assert str(info.value) == (
        "ConcreteFunction power(a, b) was constructed with int value 2 in b, "
        "but was called with int value 3."
    )


def test_unknown_dims_print_none():
    cf = double.get_concrete_function(ag.TensorSpec([None, 3], np.float64))
    assert "a: float64 Tensor, shape=(None, 3)" in str(cf)
    assert cf(np.ones((4, 3))).shape == (4, 3)


def test_wrong_dtype_or_shape_is_invalid_argument():
    cf = double.get_concrete_function(np.int64(1))
    with pytest.raises(InvalidArgumentError, match="input #0"):
        cf(np.float64(1))
    with pytest.raises(InvalidArgumentError):
        cf(np.zeros(2, np.int64))


def test_wrong_structure_is_a_type_error():
    @ag.function(autograph=False)
    def first(xs):
        return xs[0]

    cf = first.get_concrete_function([np.int64(1), np.int64(2)])
    assert cf([np.int64(5), np.int64(6)]) == 5
    with pytest.raises(TypeError, match="structured"):
        cf((np.int64(5), np.int64(6)))
    with pytest.raises(TypeError):
        cf([np.int64(5)])


def test_keyword_call_and_graph():
    cf = double.get_concrete_function(ag.TensorSpec([], np.int64))
    assert cf(a=np.int64(4)) == 8
    nodes = [(n.input, n.name) for n in cf.graph.as_graph_def().node]
    assert nodes == [([], "a"), (["a", "a"], "add"), (["add"], "Identity")]


def test_structured_input_signature():
    cf = double.get_concrete_function(np.int64(1))
    args, kwargs = cf.structured_input_signature
    assert args == (ag.TensorSpec([], np.int64, "a"),) and kwargs == {}


def test_get_concrete_function_reuses_and_feeds_the_cache():
    @ag.function(autograph=False)
    def f(x):
        return x * 2

    cf = f.get_concrete_function(ag.TensorSpec([None], np.int64))
    assert f.get_concrete_function(ag.TensorSpec([None], np.int64)) is cf
    np.testing.assert_array_equal(f(np.arange(3)), [0, 2, 4])
    np.testing.assert_array_equal(f(np.arange(5)), np.arange(5) * 2)
    assert f.experimental_get_tracing_count() == 1


def test_python_arguments_may_be_left_out():
    class Opt:
        rate = 0.5

    @ag.function(autograph=False)
    def step(x, opt):
        return x * opt.rate

    opt = Opt()
    cf = step.get_concrete_function(np.float64(1), opt)
    assert cf(np.float64(4)) == 2.0
    assert cf(np.float64(4), opt) == 2.0
    with pytest.raises(TypeError, match="was constructed with"):
        cf(np.float64(4), Opt())


def test_structured_outputs():
    @ag.function(autograph=False)
    def f(a):
        return {"twice": a + a, "none": None}

    out = f.get_concrete_function(np.int64(1)).structured_outputs
    assert out["none"] is None
    assert isinstance(out["twice"], ag.Tensor)
    assert out["twice"].dtype == np.int64 and out["twice"].shape == ()


def test_python_numbers_are_converted_to_the_input_dtype():
    cf = double.get_concrete_function(np.int32(1))
    out = cf(3)
    assert out == 6 and out.dtype == np.int32
    with pytest.raises(InvalidArgumentError):
        cf(1.5)


def test_variables_are_listed_with_the_arguments():
    @ag.function(autograph=False)
    def step(w, x, rate):
        return w * x * rate

    w = ag.Variable(np.zeros(2))
    cf = step.get_concrete_function(w, np.float64(1), 0.5)
    assert str(cf) == (
        "ConcreteFunction step(w, x, rate=0.5)\n"
        "  Args:\n"
        "    w: float64 Variable, shape=(2,)\n"
        "    x: float64 Tensor, shape=()\n"
        "  Returns:\n"
        "    float64 Tensor, shape=(2,)"
    )
