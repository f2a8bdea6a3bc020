"""`ag.onnx.export`: a Function traced for some arguments, written as an ONNX model.

    ag.onnx.export(f, "f.onnx", ag.TensorSpec([None], np.float32), np.int64(3))

The trace is optimised as for running, then converted by the runtime
(`runtime/backends/export/to_onnx.py`): staged `if` -> If, staged loops ->
Loop, TensorArrays -> scan outputs or sequences, Variables -> initializers
with their new values as extra outputs, asserts -> checks that fail the run,
`ag.print` -> left out, with a DroppedPrintWarning naming its line. Needs `pip install 'autograph[onnx]'`. See
docs/saving.md for serving the model with onnxruntime and what does not export.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from autograph.tracing.concrete import Static
from autograph.tracing.function import Function
from runtime.backends.export.onnx_emit import OPSET, DroppedPrintWarning, UnsupportedOpError
from runtime.backends.export.to_onnx import graph_to_onnx

__all__ = ["export", "to_model", "input_feed", "UnsupportedOpError", "DroppedPrintWarning", "OPSET"]


def to_model(f: Any, *args: Any, opset: int = OPSET, drop_prints: bool = True, **kwargs: Any) -> Any:
    """The `onnx.ModelProto` of `f` traced for these arguments (values or TensorSpecs).

    ONNX cannot print: each `ag.print` is left out of the model with a DroppedPrintWarning
    naming its line, or, with `drop_prints=False`, is an UnsupportedOpError."""
    from runtime.passes import optimize

    function = f if isinstance(f, Function) or hasattr(f, "get_concrete_function") else Function(f)
    concrete = function.get_concrete_function(*args, **kwargs)
    static = [p for p in concrete.out_plan if isinstance(p, Static)]
    if static:
        raise UnsupportedOpError(
            f"{concrete.name} returns the Python value {static[0].value!r}, which an ONNX model cannot "
            f"return; return tensors only."
        )
    graph = optimize(concrete.graph)
    names = [f"output_{i}" for i in range(len(graph.outputs))]
    dropped: list = []
    model = graph_to_onnx(graph, names, opset=opset, name=concrete.name, drop_prints=drop_prints, dropped=dropped)
    _warn_dropped(concrete.name, dropped)
    return model


def _warn_dropped(name: str, dropped: list) -> None:
    """One warning per line whose ag.print the model leaves out, attributed to that line."""
    seen = set()
    for node in dropped:
        origin = node.origin
        key = (origin.file, origin.line) if origin is not None else None
        if key in seen:
            continue
        seen.add(key)
        where = f"{origin}: " if origin is not None else ""
        message = (f"{where}ag.print in {name} has no ONNX form, so the exported model leaves it out (it "
                   f"prints nothing when the model runs); export with drop_prints=False to make this an error.")
        if origin is not None:
            warnings.warn_explicit(message, DroppedPrintWarning, origin.file, origin.line)
        else:
            warnings.warn(message, DroppedPrintWarning, stacklevel=3)


def export(f: Any, path: str | os.PathLike, *args: Any, opset: int = OPSET, drop_prints: bool = True,
           **kwargs: Any) -> Any:
    """Write `f` traced for these arguments to the ONNX file `path`; returns the model.

    Inputs are named after the function's tensor parameters, outputs output_0,
    output_1, ... in the order the returned structure flattens, then
    `<variable>:new` for each Variable the function assigns.
    """
    import onnx

    model = to_model(f, *args, opset=opset, drop_prints=drop_prints, **kwargs)
    onnx.checker.check_model(model, full_check=False)
    onnx.save_model(model, os.fspath(path))
    return model


def input_feed(f: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """The onnxruntime input dict for calling the model of `f` exported for arguments like
    these: each tensor argument under its input name, as an array of the traced dtype."""
    import numpy as np

    from autograph.tracing.spec import TensorSpec
    from runtime.ir.structure import flatten

    function = f if isinstance(f, Function) or hasattr(f, "get_concrete_function") else Function(f)
    concrete = function.get_concrete_function(*args, **kwargs)
    leaves, _ = flatten(concrete._bind(args, kwargs))
    specs = [(leaf, plan) for leaf, plan in zip(leaves, concrete.in_plan) if isinstance(plan, TensorSpec)]
    return {node.name: np.asarray(leaf, dtype=plan.dtype) for (leaf, plan), node in zip(specs, concrete.graph.inputs)}
