import numpy as np
import pytest

import autograph as ag


@ag.function(input_signature=(ag.TensorSpec([None], np.int32),), autograph=False)
def next_collatz(x):
    print("Tracing with", x)
    return np.where(x % 2 == 0, x // 2, 3 * x + 1)


def test_one_trace_for_every_fitting_shape(capsys):
    np.testing.assert_array_equal(next_collatz(np.array([1, 2], np.int32)), [4, 1])
    np.testing.assert_array_equal(next_collatz(np.array([1, 2, 3], np.int32)), [4, 1, 10])
    assert capsys.readouterr().out == 'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
    assert next_collatz.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("bad", [np.array([[1, 2], [3, 4]], np.int32), np.array([1.0, 2.0])])
def test_incompatible_inputs_name_argument_and_signature(bad):
    with pytest.raises(ValueError) as info:
        next_collatz(bad)
    assert isinstance(info.value, ag.errors.InvalidArgumentError)  # ours, and the guide's ValueError
    message = str(info.value)
    assert message.startswith("Python inputs incompatible with input_signature")
    assert "argument 'x'" in message
    assert "TensorSpec(shape=(None,), dtype=int32, name=None)" in message
    article = "an" if bad.dtype == np.int32 else "a"
    assert f"argument 'x' is {article} {bad.dtype.name} value of shape {bad.shape}, which" in message


def test_python_values_are_converted_when_they_fit():
    np.testing.assert_array_equal(next_collatz([1, 2]), [4, 1])
    with pytest.raises(ValueError):
        next_collatz([1.5])
    with pytest.raises(ValueError):
        next_collatz("a")


def test_nested_signature_and_concrete_function():
    @ag.function(
        input_signature=([ag.TensorSpec([], np.float64), ag.TensorSpec([], np.float64)],),
        autograph=False,
    )
    def total(pair):
        return pair[0] + pair[1]

    assert total([np.float64(1), np.float64(2)]) == 3
    cf = total.get_concrete_function()
    assert cf is total.get_concrete_function([np.float64(1), np.float64(2)])
    with pytest.raises(ValueError):
        total((np.float64(1),))


def test_concrete_function_of_a_signature_takes_specs_it_covers():
    cf = next_collatz.get_concrete_function()
    assert next_collatz.get_concrete_function(ag.TensorSpec([None], np.int32)) is cf
    assert next_collatz.get_concrete_function(ag.TensorSpec([3], np.int32)) is cf
    for spec in (ag.TensorSpec([None], np.int64), ag.TensorSpec(None, np.int32)):
        with pytest.raises(ValueError, match=r"argument 'x' is TensorSpec\(shape="):
            next_collatz.get_concrete_function(spec)
    with pytest.raises(ValueError, match="argument 'x' is a TensorSpec value"):
        next_collatz(ag.TensorSpec([None], np.int32))


def test_signature_length_must_match_at_the_first_call():
    with pytest.raises(TypeError, match="input_signature has 1 entries"):
        ag.function(lambda a, b: a, input_signature=(ag.TensorSpec([]),))(1, 2)


def test_methods_take_a_signature_without_self():
    class Scaler:
        factor = 3

        @ag.function(input_signature=(ag.TensorSpec([None], np.int64),), autograph=False)
        def scale(self, x):
            return x * self.factor

    np.testing.assert_array_equal(Scaler().scale(np.arange(3)), [0, 3, 6])
    with pytest.raises(ValueError):
        Scaler().scale(np.zeros((1, 1), np.int64))


def test_arguments_after_the_signature_keep_their_defaults():
    @ag.function(input_signature=(ag.TensorSpec([None], np.float64),), autograph=False)
    def f(x, training=False):
        return x * 2 if training else x

    np.testing.assert_array_equal(f(np.ones(2)), [1.0, 1.0])
    np.testing.assert_array_equal(f(np.ones(3), training=False), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="'training' is not in the signature"):
        f(np.ones(2), training=True)
    assert "training=False" in str(f.get_concrete_function())


def test_a_list_fits_a_tuple_in_the_signature_and_the_function_gets_the_tuple():
    seen = []

    @ag.function(input_signature=[(ag.TensorSpec([None], np.float64), ag.TensorSpec([], np.int64))])
    def scaled(pair):
        seen.append(type(pair))
        x, n = pair
        return x * n

    np.testing.assert_array_equal(scaled([np.ones(2), np.int64(3)]), [3.0, 3.0])
    np.testing.assert_array_equal(scaled((np.ones(2), np.int64(2))), [2.0, 2.0])
    assert seen == [tuple] and scaled.experimental_get_tracing_count() == 1
    with pytest.raises(ValueError, match="not structured like the signature"):
        scaled([np.ones(2)])
    with pytest.raises(ValueError, match="not structured like the signature"):
        scaled({"x": np.ones(2), "n": np.int64(2)})
