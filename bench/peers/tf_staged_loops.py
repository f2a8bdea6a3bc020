"""TensorFlow side of benchmark 5: steady-state tf.function on the small-op loops."""

from __future__ import annotations

import tensorflow as tf

from bench.agreement import check_agrees
from bench.corpus import handwritten, load_fresh
from bench.corpus.inputs import staged_cases
from bench.harness import Config, Result, attempt, time_call
from bench.peers.protocol import config_from_argv, emit
from bench.peers.tf_staged import as_numpy, as_tensors


def _steady(name: str, args: tuple, config: Config) -> Result:
    tensors = as_tensors(args)
    func = tf.function(getattr(load_fresh("staged_tf"), name))
    check_agrees(as_numpy(func(*tensors)), getattr(handwritten, name)(*args),
                 f"tf.function({name})")
    return time_call(lambda: func(*tensors), config)


def collect(config: Config) -> dict[str, Result]:
    return {
        label: attempt(lambda name=name, args=args: _steady(name, args, config), ())
        for label, name, args in staged_cases(config.quick)
    }


def main() -> None:
    emit(collect(config_from_argv()))


if __name__ == "__main__":
    main()
