"""The benchmark inputs, built from fixed seeds: identical for every side."""

from __future__ import annotations

import numpy as np

__all__ = [
    "collatz_start",
    "tanh_input",
    "fizzbuzz_limit",
    "rnn_inputs",
    "four_floats",
    "python_mode_args",
    "staged_cases",
]


def collatz_start() -> np.int64:
    """27 takes 111 steps down to 1."""
    return np.int64(27)


def tanh_input(size: int) -> np.ndarray:
    """float32 values whose sum starts above 1.

    5 values: uniform in [0, 1), as in the guide (14 iterations). Larger
    sizes are centred and shifted to sum to 2, else the loop would need
    millions of iterations (1,000 values: about 1,000 iterations).
    """
    rng = np.random.default_rng(0)
    if size <= 5:
        return rng.uniform(0.0, 1.0, size).astype(np.float32)
    x = rng.uniform(-1.0, 1.0, size)
    return (x - x.mean() + 2.0 / size).astype(np.float32)


def fizzbuzz_limit(quick: bool = False) -> np.int64:
    return np.int64(100 if quick else 1000)


def rnn_inputs(steps: int, batch: int = 2, features: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """[batch, time, features] inputs and a zero initial state, as in the guide."""
    rng = np.random.default_rng(1)
    data = rng.uniform(0.0, 1.0, (batch, steps, features)).astype(np.float32)
    return data, np.zeros((batch, features), np.float32)


def four_floats() -> np.ndarray:
    return np.array([1.0, 2.0, 3.0, 4.0], np.float32)


def python_mode_args(quick: bool = False) -> dict[str, tuple]:
    """Arguments of the loop-heavy numerics functions for the Python-mode run."""
    if quick:
        return {
            "collatz_steps": (27,),
            "fizzbuzz_counts": (100,),
            "nested_loop_sum": (20,),
            "count_primes_flag": (100,),
        }
    return {
        "collatz_steps": (837799,),
        "fizzbuzz_counts": (10_000,),
        "nested_loop_sum": (150,),
        "count_primes_flag": (2_000,),
    }


def staged_cases(quick: bool = False) -> list[tuple[str, str, tuple]]:
    """(label, function name in staged.py / staged_tf.py / handwritten.py, args)."""
    big = 100 if quick else 1000
    steps = 50 if quick else 1000
    limit = fizzbuzz_limit(quick)
    return [
        ("collatz(27), int64 scalar, 111 iterations", "collatz", (collatz_start(),)),
        ("while sum(x) > 1: x = tanh(x), 5 floats", "tanh_until_small", (tanh_input(5),)),
        (f"while sum(x) > 1: x = tanh(x), {big:,} floats", "tanh_until_small", (tanh_input(big),)),
        (f"fizzbuzz score over range({limit:,}), nested cond", "fizzbuzz_score", (limit,)),
        (f"dynamic RNN with a TensorArray, {steps:,} steps", "dynamic_rnn", rnn_inputs(steps)),
        ("x + 1 on 4 floats", "add_one", (four_floats(),)),
    ]
