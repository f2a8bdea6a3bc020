"""The peer's side of the JSON protocol: one marked line of results on stdout."""

from __future__ import annotations

import json
import os
import sys

from bench.harness import Config, Result, result_to_json

__all__ = ["MARKER", "config_from_argv", "emit", "emit_batch"]

MARKER = "BENCH-PEER-RESULTS "


def config_from_argv() -> Config:
    return Config.smoke() if "--quick" in sys.argv[1:] else Config.full()


def _versions() -> dict[str, str]:
    import numpy as np
    import tensorflow as tf

    return {
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "tf_intra_op_threads": str(tf.config.threading.get_intra_op_parallelism_threads()),
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", "unset"),
    }


def _encode(rows: dict[str, Result | int]) -> dict[str, dict]:
    """Stats/Missing as JSON objects, counts as {"count": n}."""
    return {
        key: {"count": value} if isinstance(value, int) else result_to_json(value)
        for key, value in rows.items()
    }


def emit(rows: dict[str, Result | int]) -> None:
    """Print one benchmark's results."""
    sys.stdout.write(MARKER + json.dumps({"versions": _versions(), "rows": _encode(rows)}) + "\n")
    sys.stdout.flush()


def emit_batch(modules: dict[str, dict[str, Result | int]]) -> None:
    """Print several benchmarks' results, keyed by peer module name."""
    encoded = {name: _encode(rows) for name, rows in modules.items()}
    sys.stdout.write(MARKER + json.dumps({"versions": _versions(), "modules": encoded}) + "\n")
    sys.stdout.flush()
