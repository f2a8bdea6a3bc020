"""The staged examples written for autograph (staged_tf.py: the same for TensorFlow).

Plain functions: the benchmarks wrap them in `ag.function` themselves, so
this module imports even while `ag.function` is not built.
"""

import numpy as np

import autograph as ag

__all__ = ["collatz", "tanh_until_small", "fizzbuzz_score", "dynamic_rnn", "add_one"]


def collatz(n):
    steps = np.int64(0)
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def tanh_until_small(x):
    while np.sum(x) > 1:
        x = np.tanh(x)
    return x


def fizzbuzz_score(n):
    score = np.int64(0)
    for i in ag.range(1, n + 1):
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
    input_data = np.transpose(input_data, (1, 0, 2))
    steps = input_data.shape[0]
    states = ag.TensorArray(np.float32, size=steps)
    state = initial_state
    for i in ag.range(steps):
        state = np.tanh(input_data[i] + state)
        states = states.write(i, state)
    return np.transpose(states.stack(), (1, 0, 2))


def add_one(x):
    return x + 1
