"""Our side of the peers: run a TensorFlow script in bench/.venv-peers, read its JSON.

The peers environment is created by `make bench` (see the Makefile); when it
does not exist every TensorFlow cell says so instead of holding a number.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import Config, Missing, Result, result_from_json

__all__ = ["PEERS_PYTHON", "PeerOutput", "peers_available", "run_peer"]

ROOT = Path(__file__).resolve().parents[1]
PEERS_PYTHON = ROOT / "bench" / ".venv-peers" / "bin" / "python"
MARKER = "BENCH-PEER-RESULTS "
TIMEOUT_SECONDS = 1800


@dataclass
class PeerOutput:
    """What one peer process reported, or why it reported nothing."""

    rows: dict[str, dict] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    missing: Missing | None = None

    def result(self, key: str) -> Result:
        if self.missing is not None:
            return self.missing
        data = self.rows.get(key)
        return Missing("failed", f"no result for {key!r}") if data is None else result_from_json(data)

    def count(self, key: str) -> int | Missing:
        if self.missing is not None:
            return self.missing
        data = self.rows.get(key, {})
        return data["count"] if "count" in data else result_from_json(data or {"missing": "failed"})


def peers_available() -> bool:
    return PEERS_PYTHON.exists()


def run_peer(module: str, config: Config) -> PeerOutput:
    """Run `python -m <module>` in the peers environment and parse its results."""
    if not peers_available():
        reason = "TensorFlow env missing" if config.quick else "not run: no bench/.venv-peers"
        return PeerOutput(missing=Missing(reason, "make bench creates bench/.venv-peers"))
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    command = [str(PEERS_PYTHON), "-m", module] + (["--quick"] if config.quick else [])
    try:
        proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return PeerOutput(missing=Missing("failed", f"{module} timed out"))
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            data = json.loads(line[len(MARKER):])
            return PeerOutput(rows=data["rows"], versions=data["versions"])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    print(f"  {module} failed (exit {proc.returncode}): {tail}", file=sys.stderr)
    return PeerOutput(missing=Missing("failed", f"{module}: {tail}"))
