"""TensorFlow side of benchmark 1: `tf.autograph.to_graph` on the numerics corpus."""

from __future__ import annotations

import tensorflow as tf

from bench.corpus import load_numerics
from bench.harness import Config, Result, time_named_fresh
from bench.peers.protocol import config_from_argv, emit

TOTAL = "corpus, mean per function"


def collect(config: Config) -> dict[str, Result]:
    names = list(load_numerics().CASES)
    per_name, total = time_named_fresh(
        load_numerics, names, tf.autograph.to_graph, config, not_built=()
    )
    return {**per_name, TOTAL: total}


def main() -> None:
    emit(collect(config_from_argv()))


if __name__ == "__main__":
    main()
