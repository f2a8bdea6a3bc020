"""The staged examples written for TensorFlow (staged.py: the same for autograph)."""

import tensorflow as tf

__all__ = ["collatz", "tanh_until_small", "fizzbuzz_score", "dynamic_rnn", "add_one"]


def collatz(n):
    steps = tf.constant(0, tf.int64)
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def tanh_until_small(x):
    while tf.reduce_sum(x) > 1:
        x = tf.tanh(x)
    return x


def fizzbuzz_score(n):
    score = tf.constant(0, tf.int64)
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            score += 4
        elif i % 3 == 0:
            score += 3
        elif i % 5 == 0:
            score += 2
        else:
            score += 1
    return score


def dynamic_rnn(input_data, initial_state):
    input_data = tf.transpose(input_data, [1, 0, 2])
    steps = input_data.shape[0]
    states = tf.TensorArray(tf.float32, size=steps)
    state = initial_state
    for i in tf.range(steps):
        state = tf.tanh(input_data[i] + state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


def add_one(x):
    return x + 1
