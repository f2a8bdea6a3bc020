"""TensorFlow side of benchmark 3: tf.function first-call latency on fresh functions."""

from __future__ import annotations

import tensorflow as tf

from bench.agreement import check_agrees
from bench.corpus import handwritten, load_fresh
from bench.corpus.inputs import staged_cases
from bench.harness import Config, Result, attempt, time_fresh
from bench.peers.protocol import config_from_argv, emit
from bench.peers.tf_staged import as_numpy, as_tensors


def _first_call(name: str, args: tuple, config: Config) -> Result:
    tensors = as_tensors(args)
    expected = getattr(handwritten, name)(*args)
    got = tf.function(getattr(load_fresh("staged_tf"), name))(*tensors)
    check_agrees(as_numpy(got), expected, f"tf.function({name})")
    return time_fresh(
        lambda: getattr(load_fresh("staged_tf"), name),
        lambda func: tf.function(func)(*tensors),
        config,
    )


def collect(config: Config) -> dict[str, Result]:
    return {
        label: attempt(lambda name=name, args=args: _first_call(name, args, config), ())
        for label, name, args in staged_cases(config.quick)
    }


def main() -> None:
    emit(collect(config_from_argv()))


if __name__ == "__main__":
    main()
