"""The machine line at the top of RESULTS.md: what the numbers were measured on."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

__all__ = ["machine_line"]

ROOT = Path(__file__).resolve().parents[1]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    return proc.stdout.strip() or "unknown"


def machine_line(peer_versions: dict[str, str]) -> str:
    """CPU count and model, Python, NumPy and TensorFlow versions, OpenBLAS, load."""
    tf = peer_versions.get("tensorflow", "not run")
    tf_numpy = peer_versions.get("numpy")
    tf_text = f"TensorFlow {tf}" + (f" (with NumPy {tf_numpy})" if tf_numpy else "")
    blas = ", ".join(
        f"{name}={os.environ.get(name, 'unset')}"
        for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
    )
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"Machine: {os.cpu_count()} CPUs ({_cpu_model()}), Python {sys.version.split()[0]}, "
        f"NumPy {np.__version__}, {tf_text}, {blas}; {_load()}; commit {_commit()}, {stamp}."
    )


def _load() -> str:
    """Other work on the machine slows every side: say how much there was."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average at the end {one:.1f}, {five:.1f}, {fifteen:.1f} (1, 5, 15 min)"
