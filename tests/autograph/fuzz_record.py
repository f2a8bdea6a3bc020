"""Where a long differential fuzz run keeps what it finds.

A 50,000-program run is not derandomized, so a mismatch it reports must not
depend on the terminal output surviving, nor on hypothesis replaying the
failure a second time (a failure that does not reproduce on replay is
reported only as "flaky"). Every run therefore has a seed, chosen at random
unless `FUZZ_SEED` names one, and writes under `.fuzz/` (ignored by git):

- `examples/`: hypothesis' example database; a rerun replays saved failures
  first, whatever the seed;
- `seed-<seed>/first-failure.txt`: the first mismatch the run met, written
  the moment it is met, before any shrinking;
- `seed-<seed>/smallest-failure.txt`: the shortest failing program met so far,
  rewritten as hypothesis shrinks.

`make fuzz FUZZ_SEED=<seed>` reruns one run exactly: make also sets
PYTHONHASHSEED to the seed, since the order of a set of names, and so of the
converter's output, can depend on string hashing.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

from hypothesis.database import DirectoryBasedExampleDatabase

__all__ = ["FUZZ_DIRECTORY", "FailureLog", "run_seed", "rerun_hint", "example_database"]

FUZZ_DIRECTORY = Path(__file__).resolve().parents[2] / ".fuzz"


def run_seed() -> int:
    """The seed of this run: `FUZZ_SEED` when set, otherwise a fresh one."""
    given = os.environ.get("FUZZ_SEED", "").strip()
    return int(given) if given else random.SystemRandom().randrange(2**32)


def rerun_hint(seed: int) -> str:
    """How to rerun the run of `seed`, with the string hashing it had."""
    hashing = os.environ.get("PYTHONHASHSEED", "random")
    return f"fuzz seed {seed}, PYTHONHASHSEED={hashing} (rerun: make fuzz FUZZ_SEED={seed})"


def example_database() -> DirectoryBasedExampleDatabase:
    return DirectoryBasedExampleDatabase(FUZZ_DIRECTORY / "examples")


@dataclass
class FailureLog:
    """Writes the failure reports of one seeded run to `directory/seed-<seed>/`."""

    seed: int
    directory: Path = FUZZ_DIRECTORY
    smallest: int | None = None  # length of the shortest failing program so far

    @property
    def folder(self) -> Path:
        return self.directory / f"seed-{self.seed}"

    def record(self, message: str, source: str) -> None:
        """Keep `message` as this run's first failure, and as its smallest
        one while its program is the shortest met."""
        self.folder.mkdir(parents=True, exist_ok=True)
        text = f"{rerun_hint(self.seed)}\n{message}\n"
        if self.smallest is None:
            (self.folder / "first-failure.txt").write_text(text)
        if self.smallest is None or len(source) < self.smallest:
            self.smallest = len(source)
            (self.folder / "smallest-failure.txt").write_text(text)
