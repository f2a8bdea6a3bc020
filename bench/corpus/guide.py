"""The tf.function guide's examples written for autograph, for node counts.

guide_tf.py holds the same examples for TensorFlow. `cases()` returns
(label, build) pairs; `build()` returns the concrete function's graph.
"""

import numpy as np

import autograph as ag

__all__ = ["cases"]


def add(a, b):
    return a + b


def double(a):
    return a + a


def next_collatz(x):
    return np.where(x % 2 == 0, x // 2, 3 * x + 1)


def pow_(a, b):
    return a**b


def tanh_loop(x):
    while np.sum(x) > 1:
        ag.print(x)
        x = np.tanh(x)
    return x


def fizzbuzz(n):
    for i in ag.range(1, n + 1):
        if i % 15 == 0:
            ag.print("fizzbuzz")
        elif i % 3 == 0:
            ag.print("fizz")
        elif i % 5 == 0:
            ag.print("buzz")
        else:
            ag.print(i)


def train(dataset):
    loss = ag.constant(0)
    for x, y in dataset:
        loss += np.abs(y - x)
    return loss


def rnn_step(inp, state):
    return inp + state


def dynamic_rnn(rnn_step, input_data, initial_state):
    input_data = np.transpose(input_data, (1, 0, 2))
    max_seq_len = input_data.shape[0]
    states = ag.TensorArray(np.float32, size=max_seq_len)
    state = initial_state
    for i in ag.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return np.transpose(states.stack(), (1, 0, 2))


def _graph(func, *args, **kwargs):
    return ag.function(func).get_concrete_function(*args, **kwargs).graph


def _dense_layer_graph():
    add_function = ag.function(add)

    def dense_layer(x, w, b):
        return add_function(np.matmul(x, w), b)

    ones = np.ones
    return _graph(dense_layer, ones((3, 2), np.float32), ones((2, 2), np.float32),
                  ones(2, np.float32))


def _next_collatz_graph():
    spec = ag.TensorSpec(shape=[None], dtype=np.int32)
    return ag.function(next_collatz, input_signature=(spec,)).get_concrete_function().graph


def cases():
    ones22 = np.ones((2, 2), np.float32)
    uniform5 = np.random.default_rng(0).uniform(size=5).astype(np.float32)
    rnn_data = np.random.default_rng(1).uniform(size=(2, 3, 4)).astype(np.float32)
    return [
        ("add(ones[2,2], ones[2,2])", lambda: _graph(add, ones22, ones22)),
        ("dense_layer(x, w, b), calls add", _dense_layer_graph),
        ("double(1), int32", lambda: _graph(double, np.int32(1))),
        ("next_collatz, input_signature [None] int32", _next_collatz_graph),
        ("pow(a: unknown shape, b=2)",
         lambda: _graph(pow_, ag.TensorSpec(None, np.float32), b=2)),
        ("while sum(x) > 1: print; tanh (5 floats)", lambda: _graph(tanh_loop, uniform5)),
        ("fizzbuzz(n) over range, prints", lambda: _graph(fizzbuzz, np.int32(5))),
        ("train(small_data), Python list of 3", lambda: _graph(train, [(1, 1)] * 3)),
        ("train(big_data), Python list of 10", lambda: _graph(train, [(1, 1)] * 10)),
        ("dynamic_rnn, TensorArray, [2, 3, 4]",
         lambda: _graph(dynamic_rnn, rnn_step, rnn_data, np.zeros((2, 4), np.float32))),
    ]
