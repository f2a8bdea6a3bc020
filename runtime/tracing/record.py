"""record and stage: how a trace appends a node for one op applied to Python values.

`record(op, inputs, attrs)` is the low level: inputs are Tensors or concrete
values (which become constants). `stage(name, args, kwargs)` records a
NumPy-style call, split by `split_call` into the tensors it reads and a
literal template of everything else (see `runtime.ops.calls`):

    np.clip(t, 0, 1.5)  ->  inputs = (t,)   attrs = {"args": (Slot(0), Weak(0), Weak(1.5))}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.graph import Graph, Node, leaked_error
from runtime.ir.origin import user_origin
from runtime.ir.types import type_of
from runtime.ops.calls import (
    PY_SCALAR_TYPES,
    PY_SCALARS,
    Slot,
    Span,
    Weak,
    is_dtype_like,
    staging_error,
)
from runtime.ops.registry import get_op
from runtime.tracing.staged import stages_as_tensor
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import graph_being_built

__all__ = ["record", "stage", "split_call", "as_node", "constant_node"]


def constant_node(value: Any, graph: Graph) -> Node:
    """A "constant" node for a concrete value (NumPy's default dtypes for Python numbers).

    A caller's writable array is copied: the trace keeps the value it saw, as a
    rebound global keeps it, rather than following later in-place changes."""
    array = np.asarray(value)
    if array is value and array.flags.writeable:
        array = array.copy()
    return graph.add_node("constant", (), {"value": array}, type_of(array), name="Const")


def as_node(value: Any, graph: Graph) -> Node:
    """The node for an op input: a Tensor's own node, or a new constant."""
    if isinstance(value, Tensor):
        return value.node
    if hasattr(value, "__autograph_tensor__"):
        return as_node(value.__autograph_tensor__(), graph)
    return constant_node(value, graph)


def record(op: str, inputs: tuple[Any, ...], attrs: dict[str, Any] | None = None, name: str | None = None) -> Tensor:
    """Stage `op` on `inputs` (Tensors or concrete values) in the current graph."""
    graph = graph_being_built()
    if graph is None:
        for value in inputs:
            if isinstance(value, Tensor):
                used = user_origin(2)
                at = f" at {used}" if used is not None else ""
                raise leaked_error(value.node, "leaked out of its trace", f" It is used{at}, outside any trace.")
        raise StagingError(f"cannot stage {op!r} outside a trace")
    attrs = attrs or {}
    spec = get_op(op)
    nodes = tuple([graph.own(v.node if type(v) is Tensor else as_node(v, graph)) for v in inputs])
    out_type = spec.infer([n.type for n in nodes], attrs)
    node = graph.add_node(op, nodes, attrs, out_type, user_origin(2), name=name)
    return Tensor(node, graph)


def stage(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """Record op `name` on a NumPy-style call (tensors, arrays, Python scalars, literals)."""
    inputs, attrs = split_call(args, kwargs)
    return record(name, tuple(inputs), attrs)


def split_call(args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Inputs (tensors and arrays) and attrs ({"args": template, **kwargs}) for one call."""
    inputs: list[Any] = []
    template = tuple([_template(a, inputs) for a in args])
    attrs = {key: _template(value, inputs) for key, value in kwargs.items()} if kwargs else {}
    if len(inputs) != len(template) or not _in_order(template):
        attrs["args"] = template
    return inputs, attrs


def _in_order(template: tuple) -> bool:
    """Whether the template is Slot(0), Slot(1), ...: the inputs in order (no "args" needed)."""
    for index, item in enumerate(template):
        if type(item) is not Slot or item.index != index:
            return False
    return True


def _template(value: Any, inputs: list[Any]) -> Any:
    kind = type(value)
    if kind is Tensor:  # the common cases first: a tensor, a Python number
        inputs.append(value)
        return Slot(len(inputs) - 1)
    if kind in PY_SCALAR_TYPES:
        return Weak(value)
    if hasattr(value, "__autograph_tensor__"):
        value = value.__autograph_tensor__()
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return value  # a NumPy scalar: a literal, strongly typed (unlike a Python scalar)
    if stages_as_tensor(value) or isinstance(value, (np.ndarray, np.generic)):
        inputs.append(value)
        return Slot(len(inputs) - 1)
    if isinstance(value, PY_SCALARS):
        return Weak(value)
    if isinstance(value, (list, tuple)):
        return tuple(_template(v, inputs) for v in value)
    if isinstance(value, slice):
        return Span(*(_template(v, inputs) for v in (value.start, value.stop, value.step)))
    if value is None or value is Ellipsis or isinstance(value, str):
        return value
    if isinstance(value, np.dtype) or (isinstance(value, type) and is_dtype_like(value)):
        return np.dtype(value)
    raise staging_error(
        f"cannot stage an argument of type {type(value).__name__} ({value!r}); pass tensors, "
        f"arrays, Python numbers, tuples, slices, dtypes or strings."
    )
