"""The tracing front-end: the one interface the operators stage through.

Operators (`runtime/operators/staged_*.py`) never touch the graph directly:
they ask a `Frontend` whether a value is staged, and ask it to stage a cond, a
while loop, a TensorArray, a constant or an assert. The embedded NumPy graph
(`GraphFrontend`) is the default and the only one today; another tracing
engine (JAX's tracers) plugs in by implementing this Protocol and being
returned from `get_frontend()` for its values.

Math on staged values goes through NumPy itself (`np.logical_and(t, u)`,
`t[i]`, `np.shape(t)`): every frontend's values implement NumPy's dispatch
protocols, so that part needs no method here (`arange` does, since
`np.arange` has no dispatch).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from runtime.ir.graph import Graph
from runtime.ir.types import TensorType
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.creation import arange
from runtime.tracing.effects import staged_assert_op
from runtime.tracing.record import constant_node
from runtime.tracing.staged import is_staged
from runtime.tracing.tensor import Tensor
from runtime.tracing.tensor_array import TensorArray
from runtime.tracing.trace_context import building, current_graph, is_tracing

__all__ = ["Frontend", "GraphFrontend", "get_frontend"]


class Frontend(Protocol):
    """What staged control flow needs from a tracing engine."""

    def is_staged(self, value: object) -> bool:
        """Whether `value` is symbolic in this frontend (its value known only at run time)."""

    def is_tracing(self) -> bool:
        """Whether operations are being recorded right now."""

    def type_of(self, value: Any) -> TensorType:
        """The dtype and shape of a staged value."""

    def constant(self, value: Any, dtype: Any = None) -> Any:
        """A concrete value as a staged value of the current trace."""

    def stage_cond(
        self, pred: Any, true_fn: Callable[[], Sequence], false_fn: Callable[[], Sequence],
        names: Sequence[str],
    ) -> tuple:
        """Both branches traced once; returns the staged outputs (flat tuple)."""

    def stage_while(
        self, cond: Callable[..., Any], body: Callable[..., Sequence], loop_vars: Sequence,
        maximum_iterations: Any, shape_invariants: Sequence | None, names: Sequence[str],
    ) -> tuple:
        """The loop body traced once; returns the loop variables after the loop (flat tuple)."""

    def make_tensor_array(self, dtype: Any, size: Any = 0, dynamic_size: bool = False,
                          element_shape: Any = None) -> Any:
        """A staged array of tensors (written in loops, stacked after)."""

    def is_tensor_array(self, value: object) -> bool:
        """Whether `value` is this frontend's TensorArray."""

    def is_composite(self, value: object) -> bool:
        """A staged object other than a tensor (TensorArray, staged list): carried by a handle."""

    def arange(self, start: Any, limit: Any, delta: Any, dtype: Any) -> Any:
        """start, start + delta, ... below limit, as one staged 1-d value."""

    def stage_assert(self, cond: Any, message: Any, origin: Any) -> None:
        """An effectful check that raises InvalidArgumentError when the graph runs (`message`:
        a string, or a tuple/list/dict holding tensors whose run-time values it shows)."""

    def discovery_scope(self) -> Any:
        """A context in which recording goes to a throwaway graph (to learn types)."""

    def placeholder(self, type_: TensorType) -> Any:
        """A staged value of `type_` in the current (discovery) graph."""


class GraphFrontend:
    """The embedded NumPy graph (`runtime.ir.graph`, `runtime.tracing.control_flow`)."""

    def is_staged(self, value: object) -> bool:
        return is_staged(value)

    def is_tracing(self) -> bool:
        return is_tracing()

    def type_of(self, value: Any) -> TensorType:
        return value.type

    def constant(self, value: Any, dtype: Any = None) -> Any:
        graph = current_graph()
        array = np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)
        return Tensor(constant_node(array, graph), graph)

    def stage_cond(self, pred, true_fn, false_fn, names):
        return tuple(cond(pred, true_fn, false_fn, names=tuple(names)))

    def stage_while(self, cond, body, loop_vars, maximum_iterations, shape_invariants, names):
        result = while_loop(
            cond, body, tuple(loop_vars), maximum_iterations=maximum_iterations,
            shape_invariants=shape_invariants, names=tuple(names),
        )
        return tuple(result)

    def make_tensor_array(self, dtype, size=0, dynamic_size=False, element_shape=None):
        return TensorArray(dtype, size=size, dynamic_size=dynamic_size, element_shape=element_shape)

    def is_tensor_array(self, value: object) -> bool:
        # No TensorArray can exist before its module is imported: skip the import.
        module = sys.modules.get("runtime.tracing.tensor_array")
        array_type = getattr(module, "TensorArray", None)
        return isinstance(array_type, type) and isinstance(value, array_type)

    def is_composite(self, value: object) -> bool:
        # The graph carries these by `__autograph_tensor__()` and rebuilds them after a
        # cond or loop with `__autograph_rebuild__(handle)` (see runtime.tracing.control_flow).
        return hasattr(type(value), "__autograph_rebuild__")

    def arange(self, start, limit, delta, dtype):
        return arange(start, limit, delta, dtype)

    def stage_assert(self, cond, message, origin) -> None:
        staged_assert_op(cond, message, origin)

    def discovery_scope(self):
        return building(Graph("discovery", parent=current_graph()))

    def placeholder(self, type_: TensorType) -> Any:
        graph = current_graph()
        return Tensor(graph.add_input(type_, "probe"), graph)


_DEFAULT = GraphFrontend()


def get_frontend(value: object = None) -> Frontend:
    """The frontend that owns `value` (today always the embedded NumPy graph)."""
    del value
    return _DEFAULT
