"""Shared helpers for the CLI tests: run the real command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cli"
SCRIPT = Path(sys.executable).with_name("autograph")


def run_cli(*args: str, stdin: bytes | None = None, env: dict | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `autograph ARGS` (the installed console script when there is one)."""
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "autograph.cli"]
    full_env = {**os.environ, "NO_COLOR": "", "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        command + list(args), input=stdin, capture_output=True, env=full_env,
        cwd=cwd or ROOT, timeout=120, check=False,
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
