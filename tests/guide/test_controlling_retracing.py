"""Guide section "Controlling retracing"."""

import numpy as np
import pytest

import autograph as ag


@ag.function(input_signature=(ag.TensorSpec(shape=[None], dtype=np.int32),))
def next_collatz(x):
    print("Tracing with", x)
    return np.where(x % 2 == 0, x // 2, 3 * x + 1)


def test_input_signature_limits_tracing(capsys):
    print(next_collatz(np.array([1, 2], np.int32)))
    assert capsys.readouterr().out == 'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n[4 1]\n'
    # You specified a 1-D tensor in the input signature, so this should fail.
    with pytest.raises(ValueError) as info:
        next_collatz(np.array([[1, 2], [3, 4]], np.int32))
    assert "Python inputs incompatible with input_signature" in str(info.value)
    assert "  inputs: (\n    [[1 2]\n [3 4]])" in str(info.value)
    assert "  input_signature: (\n    TensorSpec(shape=(None,), dtype=int32, name=None))." in str(info.value)
    # You specified an int32 dtype in the input signature, so this should fail.
    with pytest.raises(ValueError) as info:
        next_collatz(np.array([1.0, 2.0], np.float32))
    assert "  inputs: (\n    [1. 2.])" in str(info.value)


def test_none_dimension_reuses_the_trace(capsys):
    @ag.function(input_signature=(ag.TensorSpec(shape=[None], dtype=np.int32),))
    def g(x):
        print("Tracing with", x)
        return x

    # No retrace!
    print(g(np.array([1, 2, 3], np.int32)))
    print(g(np.array([1, 2, 3, 4, 5], np.int32)))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n[1 2 3]\n[1 2 3 4 5]\n'
    )
    assert g.experimental_get_tracing_count() == 1


def train_one_step():
    pass


@ag.function
def train(num_steps):
    print("Tracing with num_steps = ", num_steps)
    ag.print("Executing with num_steps = ", num_steps)
    for _ in ag.range(num_steps):
        train_one_step()


def test_python_arguments_retrace_tensor_arguments_do_not(capsys):
    print("Retracing occurs for different Python arguments.")
    train(num_steps=10)
    train(num_steps=20)

    print()
    print("Traces are reused for Tensor arguments.")
    train(num_steps=np.int32(10))
    train(num_steps=np.int32(20))
    assert capsys.readouterr().out == (
        "Retracing occurs for different Python arguments.\n"
        "Tracing with num_steps =  10\n"
        "Executing with num_steps =  10\n"
        "Tracing with num_steps =  20\n"
        "Executing with num_steps =  20\n"
        "\n"
        "Traces are reused for Tensor arguments.\n"
        'Tracing with num_steps =  Tensor("num_steps:0", shape=(), dtype=int32)\n'
        "Executing with num_steps =  10\n"
        "Executing with num_steps =  20\n"
    )
    assert train.experimental_get_tracing_count() == 3


def test_a_new_function_always_traces(capsys):
    def f():
        print("Tracing!")
        ag.print("Executing")

    ag.function(f)()
    ag.function(f)()
    assert capsys.readouterr().out == "Tracing!\nExecuting\nTracing!\nExecuting\n"


def test_reduce_retracing_generalises_shapes(capsys):
    @ag.function(reduce_retracing=True)
    def g(x):
        print("Tracing with", x)
        return x * 2

    for n in range(1, 6):
        np.testing.assert_array_equal(g(np.arange(n)), np.arange(n) * 2)
    assert capsys.readouterr().out == (
        'Tracing with Tensor("x:0", shape=(1,), dtype=int64)\n'
        'Tracing with Tensor("x:0", shape=(None,), dtype=int64)\n'
    )
    assert g.experimental_get_tracing_count() == 2


def test_type_hints_turn_python_numbers_into_tensors(capsys):
    @ag.function(follow_type_hints=True)
    def scaled(x: ag.Tensor):
        print("Tracing with", x)
        return x * 2

    assert [scaled(n) for n in range(4)] == [0, 2, 4, 6]
    assert capsys.readouterr().out == 'Tracing with Tensor("x:0", shape=(), dtype=int64)\n'
