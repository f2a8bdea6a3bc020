"""The tf.function guide's examples for TensorFlow (guide.py: the same for autograph)."""

import numpy as np
import tensorflow as tf

__all__ = ["cases"]


def add(a, b):
    return a + b


def double(a):
    return a + a


def next_collatz(x):
    return tf.where(x % 2 == 0, x // 2, 3 * x + 1)


def pow_(a, b):
    return a**b


def tanh_loop(x):
    while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
    return x


def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            tf.print("fizzbuzz")
        elif i % 3 == 0:
            tf.print("fizz")
        elif i % 5 == 0:
            tf.print("buzz")
        else:
            tf.print(i)


def train(dataset):
    loss = tf.constant(0)
    for x, y in dataset:
        loss += tf.abs(y - x)
    return loss


def rnn_step(inp, state):
    return inp + state


def dynamic_rnn(rnn_step, input_data, initial_state):
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = tf.TensorArray(tf.float32, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


def _graph(func, *args, **kwargs):
    return tf.function(func).get_concrete_function(*args, **kwargs).graph


def _dense_layer_graph():
    add_function = tf.function(add)

    def dense_layer(x, w, b):
        return add_function(tf.matmul(x, w), b)

    return _graph(dense_layer, tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))


def _next_collatz_graph():
    spec = tf.TensorSpec(shape=[None], dtype=tf.int32)
    return tf.function(next_collatz, input_signature=(spec,)).get_concrete_function().graph


def cases():
    ones22 = tf.ones([2, 2])
    uniform5 = tf.constant(np.random.default_rng(0).uniform(size=5).astype(np.float32))
    rnn_data = tf.constant(np.random.default_rng(1).uniform(size=(2, 3, 4)).astype(np.float32))
    return [
        ("add(ones[2,2], ones[2,2])", lambda: _graph(add, ones22, ones22)),
        ("dense_layer(x, w, b), calls add", _dense_layer_graph),
        ("double(1), int32", lambda: _graph(double, tf.constant(1))),
        ("next_collatz, input_signature [None] int32", _next_collatz_graph),
        ("pow(a: unknown shape, b=2)",
         lambda: _graph(pow_, tf.TensorSpec(None, tf.float32), b=2)),
        ("while sum(x) > 1: print; tanh (5 floats)", lambda: _graph(tanh_loop, uniform5)),
        ("fizzbuzz(n) over range, prints", lambda: _graph(fizzbuzz, tf.constant(5))),
        ("train(small_data), Python list of 3", lambda: _graph(train, [(1, 1)] * 3)),
        ("train(big_data), Python list of 10", lambda: _graph(train, [(1, 1)] * 10)),
        ("dynamic_rnn, TensorArray, [2, 3, 4]",
         lambda: _graph(dynamic_rnn, rnn_step, rnn_data, tf.zeros([2, 4]))),
    ]
