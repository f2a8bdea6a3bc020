"""TensorFlow side of benchmark 6: node counts of the guide's examples."""

from __future__ import annotations

from bench.corpus import load_fresh
from bench.harness import Config, Result, attempt
from bench.peers.protocol import config_from_argv, emit


def collect(config: Config) -> dict[str, Result | int]:
    """Counts, not times: the same in the full and the quick run."""
    return {
        label: attempt(lambda build=build: len(build().as_graph_def().node), ())
        for label, build in load_fresh("guide_tf").cases()
    }


def main() -> None:
    emit(collect(config_from_argv()))


if __name__ == "__main__":
    main()
