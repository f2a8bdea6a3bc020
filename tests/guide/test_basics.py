"""Guide section "Basics": a Function is called like the Python function it wraps."""

import timeit

import numpy as np

import autograph as ag


@ag.function  # The decorator converts `add` into a `Function`.
def add(a, b):
    return a + b


@ag.function
def dense_layer(x, w, b):
    return add(np.matmul(x, w), b)


def test_usage():
    result = add(np.ones([2, 2], np.float32), np.ones([2, 2], np.float32))
    np.testing.assert_array_equal(result, [[2.0, 2.0], [2.0, 2.0]])
    assert result.dtype == np.float32


def test_variables_are_accepted_and_read():
    v = ag.Variable(1.0)
    assert add(v, 1.0) == 2.0
    v.assign(5.0)
    assert add(v, 1.0) == 6.0
    assert add.get_concrete_function(v, 1.0) is add.get_concrete_function(v, 1.0)


def test_functions_inside_functions():
    result = dense_layer(np.ones([3, 2], np.float32), np.ones([2, 2], np.float32), np.ones([2], np.float32))
    np.testing.assert_array_equal(result, np.full((3, 2), 3.0, np.float32))
    # The inner Function is part of the outer trace, not traced on its own.
    assert dense_layer.experimental_get_tracing_count() == 1


def test_function_and_eager_agree_on_a_bigger_computation(capsys):
    def layer(image):
        return np.tanh(np.matmul(image, np.full((100, 10), 0.01, np.float32)) + 1.0)

    layer_fn = ag.function(layer)
    image = np.zeros([1, 200, 100], np.float32)
    layer(image)
    layer_fn(image)  # Warm up
    print("Eager layer:", timeit.timeit(lambda: layer(image), number=10))
    print("Function layer:", timeit.timeit(lambda: layer_fn(image), number=10))
    np.testing.assert_allclose(layer_fn(image), layer(image), rtol=1e-6)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Eager layer: ") and lines[1].startswith("Function layer: ")
