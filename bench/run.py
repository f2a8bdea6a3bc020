"""`python -m bench.run [--quick]`: every benchmark, side by side, into RESULTS.md.

The full run measures each case over 7 repetitions (warm-ups discarded) and
writes bench/RESULTS.md; TensorFlow runs in a separate process per benchmark.
`--quick` runs each benchmark once on small inputs as a smoke test (all
TensorFlow benchmarks in one process) and prints the tables without touching
RESULTS.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench import (
    call_overhead,
    conversion,
    first_call,
    node_counts,
    python_mode,
    staged_loops,
    xla_backend,
)
from bench.harness import Config
from bench.machine import machine_line
from bench.peer_process import Peers, peers_available
from bench.report import Section, render

__all__ = ["BENCHMARKS", "main"]

BENCHMARKS = [conversion, python_mode, first_call, call_overhead, staged_loops, node_counts, xla_backend]
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"

PREAMBLE = """# Benchmark results

Written by `make bench` (`python -m bench.run`); do not edit by hand.

{machine}

Each timing cell is `median [min–max]` over {reps} repetitions, warm-ups
discarded; fast calls repeat within a repetition until it lasts at least
{min_rep_ms:g} ms. Ratios divide medians. "ours" is this project, "TensorFlow"
runs in its own environment and process (bench/.venv-peers), "limit" is the
same work hand-written in Python/NumPy. Cells without a number say why:
"not built" (that part of the project does not exist yet), "failed" (the
notes under the table give the error). All sides get the same inputs
(bench/corpus/inputs.py). Times are wall-clock: on a machine busy with other
work (see the load average above) every side is slower and noisier, so
compare the ratios, and the spread of each cell, more than the absolute times.
"""


def _versions(sections: list[Section]) -> dict[str, str]:
    """TensorFlow's versions, as the first peer that ran reported them."""
    return next((s.peer_versions for s in sections if s.peer_versions), {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="each benchmark once on small inputs; prints, writes nothing")
    args = parser.parse_args(argv)
    config = Config.smoke() if args.quick else Config.full()
    if not peers_available():
        print("TensorFlow side skipped: bench/.venv-peers does not exist "
              "(make bench creates it)", file=sys.stderr)
    batch = [b.PEER for b in BENCHMARKS if b.PEER] if args.quick else None
    peers = Peers(config, batch=batch)
    sections: list[Section] = []
    for benchmark in BENCHMARKS:
        start = time.perf_counter()
        print(f"{benchmark.TITLE} ...", file=sys.stderr, flush=True)
        sections.append(benchmark.run(config, peers))
        print(f"  done in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    preamble = PREAMBLE.format(machine=machine_line(_versions(sections)), reps=config.reps,
                               min_rep_ms=config.min_rep_seconds * 1000)
    text = render(preamble, sections)
    if args.quick:
        print(text)
    else:
        RESULTS.write_text(text, encoding="utf-8")
        print(f"wrote {RESULTS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
