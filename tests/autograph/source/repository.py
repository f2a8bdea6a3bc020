"""The project's own Python files, as tests that read every source file see them."""

import pathlib
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parents[3]


def python_files(folder: str) -> Iterator[pathlib.Path]:
    """The `.py` files under `folder`, in order, less hidden folders: `make bench` puts a
    whole TensorFlow environment in bench/.venv-peers, which is not the project's code."""
    for path in sorted((ROOT / folder).rglob("*.py")):
        if not any(part.startswith(".") for part in path.relative_to(ROOT).parts):
            yield path
