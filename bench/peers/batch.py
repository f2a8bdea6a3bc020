"""Several peer benchmarks in one process: the quick run pays TensorFlow's import once.

`python -m bench.peers.batch [--quick] bench.peers.tf_a bench.peers.tf_b ...`
"""

from __future__ import annotations

import importlib
import sys

from bench.harness import Missing, attempt
from bench.peers.protocol import config_from_argv, emit_batch


def main() -> None:
    config = config_from_argv()
    modules = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    results = {}
    for name in modules:
        rows = attempt(lambda name=name: importlib.import_module(name).collect(config), ())
        results[name] = {"(all)": rows} if isinstance(rows, Missing) else rows
    emit_batch(results)


if __name__ == "__main__":
    main()
