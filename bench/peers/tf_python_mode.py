"""TensorFlow side of benchmark 2: AutoGraph-converted code called with Python values."""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.autograph.core import converter
from tensorflow.python.autograph.impl import api as autograph_api

from bench.corpus import load_numerics
from bench.corpus.inputs import python_mode_args
from bench.harness import Config, Result, attempt, time_call
from bench.peers.protocol import config_from_argv, emit

CALL_KEY = "converted_call(affine, 3.0)"


def _converted(func, args: tuple, config: Config) -> Result:
    converted = tf.autograph.to_graph(func)
    expected, got = func(*args), converted(*args)
    if got != expected:
        raise AssertionError(f"converted code returned {got!r}, the original {expected!r}")
    return time_call(lambda: converted(*args), config)


def _converted_call(func, config: Config) -> Result:
    options = converter.ConversionOptions(recursive=True)

    def call():
        return autograph_api.converted_call(func, (3.0,), None, options=options)

    if call() != func(3.0):
        raise AssertionError("converted_call returned a different value")
    return time_call(call, config)


def collect(config: Config) -> dict[str, Result]:
    module = load_numerics()
    rows: dict[str, Result] = {}
    for name, args in python_mode_args(config.quick).items():
        func = getattr(module, name)
        rows[f"{name}{args}"] = attempt(lambda f=func, a=args: _converted(f, a, config), ())
    rows[CALL_KEY] = attempt(lambda: _converted_call(module.affine, config), ())
    return rows


def main() -> None:
    emit(collect(config_from_argv()))


if __name__ == "__main__":
    main()
