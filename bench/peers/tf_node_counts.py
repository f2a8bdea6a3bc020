"""TensorFlow side of benchmark 6: node counts of the guide's examples."""

from __future__ import annotations

from bench.corpus import load_fresh
from bench.harness import attempt
from bench.peers.protocol import emit


def main() -> None:
    emit({
        label: attempt(lambda build=build: len(build().as_graph_def().node), ())
        for label, build in load_fresh("guide_tf").cases()
    })


if __name__ == "__main__":
    main()
