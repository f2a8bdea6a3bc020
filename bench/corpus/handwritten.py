"""The limit: the staged examples written by hand as Python loops over NumPy.

This is what a graph compiled to straight-line NumPy can at best approach:
the same loop, with no staging machinery around it.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "collatz",
    "tanh_until_small",
    "fizzbuzz_score",
    "fizzbuzz_score_python_ints",
    "dynamic_rnn",
    "add_one",
]


def collatz(n: np.int64) -> np.int64:
    steps = np.int64(0)
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def tanh_until_small(x: np.ndarray) -> np.ndarray:
    while np.sum(x) > 1:
        x = np.tanh(x)
    return x


def fizzbuzz_score(n: np.int64) -> np.int64:
    """The staged loop's own arithmetic: int64 counter and score, as the graph computes."""
    score = np.int64(0)
    for i in np.arange(1, n + 1):
        if i % 15 == 0:
            score += 4
        elif i % 3 == 0:
            score += 3
        elif i % 5 == 0:
            score += 2
        else:
            score += 1
    return score


def fizzbuzz_score_python_ints(n: np.int64) -> int:
    """The same count over Python ints: faster, but not int64 arithmetic (no wraparound)."""
    score = 0
    for i in range(1, int(n) + 1):
        if i % 15 == 0:
            score += 4
        elif i % 3 == 0:
            score += 3
        elif i % 5 == 0:
            score += 2
        else:
            score += 1
    return score


def dynamic_rnn(input_data: np.ndarray, initial_state: np.ndarray) -> np.ndarray:
    steps_first = np.transpose(input_data, (1, 0, 2))
    states = np.empty((steps_first.shape[0],) + initial_state.shape, np.float32)
    state = initial_state
    for i in range(steps_first.shape[0]):
        state = np.tanh(steps_first[i] + state)
        states[i] = state
    return np.transpose(states, (1, 0, 2))


def add_one(x: np.ndarray) -> np.ndarray:
    return x + 1
