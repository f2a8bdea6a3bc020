"""TensorFlow side of benchmark 4: a tf.function call that hits its trace cache."""

from __future__ import annotations

import tensorflow as tf

from bench.agreement import check_agrees
from bench.corpus import handwritten, load_fresh
from bench.corpus.inputs import four_floats
from bench.harness import Config, Result, attempt, time_call
from bench.peers.protocol import config_from_argv, emit
from bench.peers.tf_staged import as_numpy

CASE = "x + 1 on 4 floats, trace cached"


def _cached_call(config: Config) -> Result:
    x = tf.constant(four_floats())
    add_one = tf.function(load_fresh("staged_tf").add_one)
    check_agrees(as_numpy(add_one(x)), handwritten.add_one(four_floats()), "tf.function")
    return time_call(lambda: add_one(x), config)


def collect(config: Config) -> dict[str, Result]:
    return {CASE: attempt(lambda: _cached_call(config), ())}


def main() -> None:
    emit(collect(config_from_argv()))


if __name__ == "__main__":
    main()
