"""Our side of the peers: run TensorFlow scripts in bench/.venv-peers, read their JSON.

The full run starts one process per benchmark, so no benchmark's TensorFlow
state disturbs another's; the quick run starts one process for all of them
(TensorFlow's import alone takes seconds). The peers environment is created
by `make bench` (see the Makefile); when it does not exist every TensorFlow
cell says so instead of holding a number.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import Config, Missing, Result, result_from_json

__all__ = ["PEERS_PYTHON", "PeerOutput", "Peers", "peers_available", "run_peer"]

ROOT = Path(__file__).resolve().parents[1]
PEERS_PYTHON = ROOT / "bench" / ".venv-peers" / "bin" / "python"
MARKER = "BENCH-PEER-RESULTS "
TIMEOUT_SECONDS = 1800


@dataclass
class PeerOutput:
    """What one peer benchmark reported, or why it reported nothing."""

    rows: dict[str, dict] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    missing: Missing | None = None

    def result(self, key: str) -> Result:
        if self.missing is not None:
            return self.missing
        data = self.rows.get(key) or self.rows.get("(all)")
        if data is None:
            return Missing("failed", f"no result for {key!r}")
        return result_from_json(data)

    def count(self, key: str) -> int | Missing:
        if self.missing is not None:
            return self.missing
        data = self.rows.get(key) or self.rows.get("(all)") or {"missing": "failed"}
        return data["count"] if "count" in data else result_from_json(data)


def peers_available() -> bool:
    return PEERS_PYTHON.exists()


def _run(args: list[str], config: Config) -> tuple[dict | None, Missing | None]:
    """Run `python -m <args>` in the peers environment; its JSON, or why there is none."""
    if not peers_available():
        reason = "TensorFlow env missing" if config.quick else "not run: no bench/.venv-peers"
        return None, Missing(reason, "make bench creates bench/.venv-peers")
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    command = [str(PEERS_PYTHON), "-m", *args] + (["--quick"] if config.quick else [])
    try:
        proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return None, Missing("failed", f"{args[0]} timed out")
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):]), None
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    print(f"  {args[0]} failed (exit {proc.returncode}): {tail}", file=sys.stderr)
    return None, Missing("failed", f"{args[0]}: {tail}")


def run_peer(module: str, config: Config) -> PeerOutput:
    """One peer benchmark in its own process."""
    data, missing = _run([module], config)
    if data is None:
        return PeerOutput(missing=missing)
    return PeerOutput(rows=data["rows"], versions=data["versions"])


class Peers:
    """Where benchmarks get TensorFlow's results: a process each, or one batch.

    With `batch` (the quick run), the first request runs every listed module
    in one process and later requests read from it.
    """

    def __init__(self, config: Config, batch: list[str] | None = None) -> None:
        self.config = config
        self.batch = batch
        self._batch_outputs: dict[str, PeerOutput] | None = None

    def output(self, module: str) -> PeerOutput:
        if not self.batch or module not in self.batch:
            return run_peer(module, self.config)
        if self._batch_outputs is None:
            self._batch_outputs = self._run_batch()
        return self._batch_outputs[module]

    def _run_batch(self) -> dict[str, PeerOutput]:
        data, missing = _run(["bench.peers.batch", *self.batch], self.config)
        if data is None:
            return {module: PeerOutput(missing=missing) for module in self.batch}
        return {
            module: PeerOutput(rows=data["modules"].get(module, {}), versions=data["versions"])
            for module in self.batch
        }
