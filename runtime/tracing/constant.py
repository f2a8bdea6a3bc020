"""constant: a concrete value, staged as a constant node inside a trace.

Outside a trace it is just `np.asarray(value, dtype)`; inside, the value
becomes a "constant" node of the graph being recorded, so it prints, folds
and types like any other tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.origin import user_origin
from runtime.ir.types import type_of
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import current_graph

__all__ = ["constant"]


def constant(value: Any, dtype: Any = None) -> np.ndarray | Tensor:
    """`value` as an array of `dtype` (NumPy's default dtypes when None), staged in a trace."""
    if isinstance(value, Tensor) or hasattr(value, "__autograph_tensor__"):
        raise StagingError(
            f"ag.constant needs a concrete value, but was given a staged {type(value).__name__}; "
            f"use the tensor itself, or .astype(dtype) to change its dtype."
        )
    array = np.asarray(value, dtype=dtype)
    graph = current_graph()
    if graph is None:
        return array
    if array is value and array.flags.writeable:
        array = array.copy()  # the trace keeps the value it saw (see constant_node)
    node = graph.add_node("constant", (), {"value": array}, type_of(array), user_origin(2), name="Const")
    return Tensor(node, graph)
