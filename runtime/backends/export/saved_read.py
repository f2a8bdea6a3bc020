"""Reading a saved directory: the manifest, the files' sizes and hashes, and the backends that run it.

`read` checks the manifest's format and version and each file's size and
sha256 before it parses anything, reads the arrays with allow_pickle=False,
and hands the JSON to the `Decoder` (saved_decode.py), which checks every
value and builds the `LoadedObject` (loaded.py). `register_runner` adds a
backend the loaded graphs may run on (the NumPy compiler is the default).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from runtime.backends.export.loaded import LoadedObject, Runner
from runtime.backends.export.saved_decode import Decoder
from runtime.backends.export.saved_format import (
    ARRAYS_FILE,
    DATA_FILES,
    FORMAT,
    GRAPH_FILE,
    MANIFEST_FILE,
    VARIABLES_FILE,
    VERSION,
    LoadError,
)
from runtime.ir.graph import Graph
from runtime.ops import effects as ops_effects

__all__ = ["read", "register_runner"]


def _numpy_runner(graph: Graph) -> Callable[..., list]:
    from runtime.backends.numpy.compiler import compile_graph

    return compile_graph(graph)


def _jax_runner(graph: Graph) -> Callable[..., list]:
    """The XLA backend's executable: NumPy arrays in, NumPy arrays out (compiled at the first call)."""
    from runtime.backends import get_backend

    return get_backend("jax").compile(graph)


_RUNNERS: dict[str, Runner] = {"numpy": _numpy_runner, "jax": _jax_runner}


def register_runner(name: str, runner: Runner) -> None:
    """Let `read(..., backend=name)` run graphs with `runner(graph)`, a callable taking the flat
    inputs and returning the list of outputs."""
    _RUNNERS[name] = runner


def read(path: str | os.PathLike, backend: str = "numpy") -> LoadedObject:
    """The saved object in directory `path`, checked and rebuilt (see the module docstring)."""
    if backend not in _RUNNERS:
        raise ValueError(
            f"no backend {backend!r} runs saved graphs here; available: {', '.join(sorted(_RUNNERS))}."
        )
    if backend == "jax":  # say what to install now, not at the first call
        from runtime.backends.jax import require_jax

        require_jax()
    directory = Path(path)
    effects = ops_effects
    document, arrays, values = _read_files(directory)
    return Decoder(directory, effects, arrays, values, _RUNNERS[backend]).root(document)


def _read_files(directory: Path) -> tuple[dict, Mapping[str, np.ndarray], Mapping[str, np.ndarray]]:
    manifest_path = directory / MANIFEST_FILE
    if not directory.is_dir():
        raise LoadError(f"{directory} is not a directory; ag.saved_model.load takes the directory save wrote.")
    if not manifest_path.is_file():
        raise LoadError(
            f"{directory} holds no {MANIFEST_FILE}: it is not a saved graph directory (or it was not "
            f"saved completely); save it again with ag.saved_model.save."
        )
    manifest = _parse_json(manifest_path.read_bytes(), manifest_path)
    _check_format(manifest, manifest_path)
    files = manifest.get("files")
    if not isinstance(files, dict) or set(files) != set(DATA_FILES):
        raise LoadError(f"{manifest_path} does not list the files {', '.join(DATA_FILES)}; it was altered.")
    contents = {}
    for name in DATA_FILES:
        facts = files[name]
        file = directory / name
        if not file.is_file():
            raise LoadError(f"{file} is missing; the saved directory is incomplete. Save it again.")
        data = file.read_bytes()
        if not isinstance(facts, dict) or len(data) != facts.get("size"):
            raise LoadError(
                f"{file} has {len(data)} bytes but was saved with {facts.get('size') if isinstance(facts, dict) else '?'}: "
                f"it is truncated or was changed after saving. Save it again, or copy it completely."
            )
        if hashlib.sha256(data).hexdigest() != facts.get("sha256"):
            raise LoadError(
                f"{file} does not match the sha256 hash recorded in {MANIFEST_FILE}: it was changed after "
                f"saving (or damaged). Save it again."
            )
        contents[name] = data
    document = _parse_json(contents[GRAPH_FILE], directory / GRAPH_FILE)
    _check_format(document, directory / GRAPH_FILE)
    return document, _load_npz(directory / ARRAYS_FILE), _load_npz(directory / VARIABLES_FILE)


def _parse_json(data: bytes, path: Path) -> Any:
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise LoadError(f"{path} is not valid JSON ({error}); it is damaged. Save it again.") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"the non-standard constant {name}")


def _check_format(document: Any, path: Path) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise LoadError(f"{path} is not an autograph saved graph (its format is not {FORMAT!r}).")
    version = document.get("version")
    if type(version) is not int:
        raise LoadError(f"{path} has no format version; it was altered.")
    if version > VERSION:
        raise LoadError(
            f"{path} was saved in format version {version}, newer than this autograph reads "
            f"(version {VERSION}); upgrade autograph to load it."
        )
    if version < 1:
        raise LoadError(f"{path} has the unknown format version {version}.")


def _load_npz(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError, EOFError, KeyError) as error:
        raise LoadError(f"{path} cannot be read as NumPy arrays ({error}); save it again.") from None
