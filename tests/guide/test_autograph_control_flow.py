"""Guide section "AutoGraph transformations", end to end through ag.function.

Each example is written as in the guide (with NumPy and ag.*), traced by
ag.function and run; tests print what the guide prints, plus node counts.
More cases: test_control_flow_end_to_end.py; the errors: test_control_flow_errors.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def node_count(f, *args) -> int:
    return len(f.get_concrete_function(*args).graph.as_graph_def().node)


# -- A simple loop ----------------------------------------------------------------
@ag.function
def tanh_loop(x):
    while np.sum(x) > 1:
        ag.print(x)
        x = np.tanh(x)
    return x


def test_simple_loop(capsys):
    start = np.array([0.666, 0.714, 0.724, 0.331, 0.184], np.float32)
    result = tanh_loop(start)
    printed = capsys.readouterr().out.splitlines()
    expected = start
    steps = 0
    while np.sum(expected) > 1:
        expected = np.tanh(expected)
        steps += 1
    np.testing.assert_allclose(result, expected, rtol=1e-6)
    assert len(printed) == steps
    print("\n".join(printed))
    print(f"tanh loop: {node_count(tanh_loop, start)} nodes")


# -- fizzbuzz: a staged for over ag.range with a nested cond ------------------------
@ag.function
def fizzbuzz(n):
    for i in ag.range(1, n + 1):
        print("Tracing for loop")
        if i % 15 == 0:
            print("Tracing fizzbuzz branch")
            ag.print("fizzbuzz")
        elif i % 3 == 0:
            print("Tracing fizz branch")
            ag.print("fizz")
        elif i % 5 == 0:
            print("Tracing buzz branch")
            ag.print("buzz")
        else:
            print("Tracing default branch")
            ag.print(i)


def test_fizzbuzz(capsys):
    fizzbuzz(np.int64(5))
    fizzbuzz(np.int64(20))
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == ["Tracing for loop", "Tracing fizzbuzz branch", "Tracing fizz branch",
                       "Tracing buzz branch", "Tracing default branch"]
    expected = ["fizzbuzz" if i % 15 == 0 else "fizz" if i % 3 == 0 else "buzz" if i % 5 == 0
                else str(i) for n in (5, 20) for i in range(1, n + 1)]
    assert out[5:] == expected
    print("\n".join(out))


# -- collatz: a staged while with a conditional expression ---------------------------
@ag.function
def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_collatz_is_traced_once():
    assert collatz(np.int64(27)) == 111
    assert collatz(np.int64(97)) == 118
    assert collatz(np.int64(1)) == 0
    assert collatz.experimental_get_tracing_count() == 1
    print(f"collatz: {node_count(collatz, np.int64(27))} nodes, traced once for 27, 97 and 1")


# -- Accumulating values in a loop ---------------------------------------------------
def rnn_step(inp, state):
    return inp + state


@ag.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    # [batch, time, features] -> [time, batch, features]
    input_data = np.transpose(input_data, (1, 0, 2))
    max_seq_len = input_data.shape[0]

    states = ag.TensorArray(np.float32, size=max_seq_len)
    state = initial_state
    for i in ag.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return np.transpose(states.stack(), (1, 0, 2))


def test_dynamic_rnn():
    batch_size, seq_len, feature_size = 2, 3, 4
    data = np.random.default_rng(1).uniform(size=(batch_size, seq_len, feature_size)).astype(np.float32)
    result = dynamic_rnn(rnn_step, data, np.zeros((batch_size, feature_size), np.float32))
    print(repr(result))
    assert result.shape == (2, 3, 4) and result.dtype == np.float32
    np.testing.assert_allclose(result, np.cumsum(data, axis=1), rtol=1e-6)


@ag.function
def doubled(xs):
    outputs = []
    for x in xs:
        outputs.append(x * 2)
    return np.stack(outputs)


@ag.function
def squares(xs):
    out = []
    for x in xs:
        out.append(x * x)
    return out


def test_accumulate_in_a_python_list_inside_a_staged_loop():
    assert squares(np.array([1, 2, 3])) == [1, 4, 9]
    np.testing.assert_array_equal(doubled(np.array([1, 2, 3])), [2, 4, 6])
    np.testing.assert_array_equal(doubled(np.array([4, 5, 6, 7])), [8, 10, 12, 14])
    print(f"accumulate: {node_count(doubled, np.array([1, 2, 3]))} nodes")


# -- Looping over Python data vs over a tensor ----------------------------------------
@ag.function
def train(dataset):
    loss = ag.constant(0)
    for x, y in dataset:
        loss += np.abs(y - x)
    return loss


@pytest.mark.filterwarnings("ignore:.*traced a new graph")
def test_train_loop_over_python_data_grows_over_a_tensor_does_not():
    small, big = [(1, 1)] * 3, [(1, 1)] * 10
    python_sizes = [node_count(train, small), node_count(train, big)]
    tensor_sizes = [node_count(train, np.ones((3, 2), np.int64)), node_count(train, np.ones((10, 2), np.int64))]
    print(f"train over a Python list: {python_sizes} nodes; over a tensor: {tensor_sizes} nodes")
    assert python_sizes[1] > python_sizes[0]
    assert tensor_sizes[0] == tensor_sizes[1]
    assert train(np.array([[1, 4], [5, 2]])) == 6


# -- break, continue, return, for/else, builtins ------------------------------------
@ag.function
def first_index_over(xs, limit):
    for i, x in enumerate(xs):
        if x > limit:
            return i
    return -1


def test_return_from_inside_a_staged_loop():
    assert first_index_over(np.array([1, 5, 9]), np.int64(4)) == 1
    assert first_index_over(np.array([1, 2]), np.int64(4)) == -1


@ag.function
def sum_until_negative_skipping_odd(xs):
    total = 0
    for x in xs:
        if x < 0:
            break
        if x % 2 == 1:
            continue
        total += x
    else:
        total = -total
    return total


def test_break_continue_and_for_else():
    def python(xs):
        total = 0
        for x in xs:
            if x < 0:
                break
            if x % 2 == 1:
                continue
            total += x
        else:
            total = -total
        return total

    for xs in ([2, 3, 4, -1, 6], [2, 3, 4], []):
        array = np.array(xs, np.int64)
        assert sum_until_negative_skipping_odd(array) == python(xs)


@ag.function
def builtins_on_tensors(xs, n):
    total = 0.0
    for i in range(n):
        total += float(xs[i % len(xs)])
    return int(total), abs(min(xs)), max(xs)


def test_builtins_on_tensors():
    total, smallest, largest = builtins_on_tensors(np.array([3, -1, 2]), np.int64(5))
    assert (total, smallest, largest) == (3 - 1 + 2 + 3 - 1, 1, 3)


# -- Tracing "if" and "while": tensors trace every branch once, Python values unroll -----
@ag.function
def which_branch(n):
    if n == 0:
        print("Tracing branch 1")
        result = n * 0
    elif n == 1:
        print("Tracing branch 2")
        result = n * 10
    else:
        print("Tracing branch 3")
        result = n * 100
    return result


def test_tensor_if_traces_every_branch_python_if_one(capsys):
    assert which_branch(np.int64(1)) == 10
    assert capsys.readouterr().out.splitlines() == [
        "Tracing branch 1", "Tracing branch 2", "Tracing branch 3"]
    assert which_branch(np.int64(2)) == 200
    assert capsys.readouterr().out == ""
    assert which_branch(1) == 10
    assert capsys.readouterr().out.splitlines() == ["Tracing branch 2"]


@ag.function
def add_n_times(x, n):
    i = 0
    while i < n:
        x = x + 1
        i += 1
    return x


@pytest.mark.filterwarnings("ignore:.*traced a new graph")
def test_python_while_unrolls_tensor_while_is_one_loop():
    x = np.float64(0.5)
    sizes = {n: node_count(add_n_times, x, n) for n in (3, 6)}
    tensor_size = node_count(add_n_times, x, np.int64(3))
    print(f"while over a Python bound: {sizes} nodes; over a tensor bound: {tensor_size} nodes")
    assert sizes[6] > sizes[3]
    assert node_count(add_n_times, x, np.int64(6)) == tensor_size
    assert add_n_times(x, np.int64(6)) == 6.5 and add_n_times(x, 4) == 4.5


@ag.function
def relu(x):
    if x > 0:
        y = x
    else:
        y = 0
    return y


def test_python_scalar_in_one_branch_takes_the_tensor_dtype():
    assert relu(np.float32(1.5)) == 1.5
    assert relu(np.float32(-1.5)) == 0.0 and relu(np.float32(-1.5)).dtype == np.float32
