"""TensorFlow side of benchmark 1: `tf.autograph.to_graph` on the numerics corpus."""

from __future__ import annotations

import tensorflow as tf

from bench.corpus import load_fresh
from bench.harness import time_named_fresh
from bench.peers.protocol import config_from_argv, emit

TOTAL = "corpus, mean per function"


def main() -> None:
    config = config_from_argv()
    names = list(load_fresh("numerics").CASES)
    per_name, total = time_named_fresh(
        lambda: load_fresh("numerics"), names, tf.autograph.to_graph, config, not_built=()
    )
    emit({**per_name, TOTAL: total})


if __name__ == "__main__":
    main()
