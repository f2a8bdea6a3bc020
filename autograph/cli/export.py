"""`autograph export`: import a module, trace one function, and save it as a saved graph or ONNX.

Like `autograph graph`, this command imports the module (its top-level code
runs) and traces the function for the `--arg` specs; the trace is then
written with `ag.saved_model.save` (a directory) or `ag.onnx.export` (a file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

from autograph.cli.graph import UsageError, _arguments, _load_target, _trace_function

__all__ = ["ExportOptions", "run_export", "FORMATS"]

FORMATS = ("saved", "onnx")


@dataclass
class ExportOptions:
    """What `autograph export` was asked to do."""

    target: str
    output: str
    format: str = "saved"
    args: list[str] = field(default_factory=list)


def run_export(options: ExportOptions, stdout: IO[str], stderr: IO[str]) -> int:
    """Trace the target for the given specs and write it in the chosen format."""
    import autograph as ag

    if options.format not in FORMATS:
        raise UsageError(f"unknown --format {options.format!r}: use saved or onnx")
    args, kwargs = _arguments(options.args)
    function = _trace_function(_load_target(options.target), args, kwargs)
    if options.format == "saved":
        concrete = function.get_concrete_function(*args, **kwargs)
        ag.saved_model.save(function, options.output, signatures=[concrete])
        stderr.write(f"wrote the saved graph {options.output} ({len(concrete.graph.nodes)} nodes)\n")
        return 0
    from autograph import onnx as ag_onnx

    ag_onnx.export(function, options.output, *args, **kwargs)
    stderr.write(f"wrote the ONNX model {options.output}\n")
    return 0
