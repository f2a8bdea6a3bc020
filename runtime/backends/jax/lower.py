"""Graph -> one Python function over jax.numpy and lax, for `jax.jit` to trace.

Each node becomes one JAX call, in graph order:

- an op made by `runtime.ops.define` calls its jax.numpy counterpart
  (`ops.counterpart`); its tensor operands are brought to NumPy's common
  dtype first and its result to the dtype the graph inferred, so a graph
  computes in the dtypes it computes in on the NumPy backend (64-bit ones
  included: the caller traces with x64 on);
- a node whose inputs are all known while lowering (constants) is computed
  right away with the op's NumPy `impl`, so sizes and trip counts stay
  Python values;
- `cond` -> `lax.cond`, `while` -> `lax.while_loop`, or `lax.fori_loop`
  when a counter from 0 to a known bound alone ends it (its counter then has
  a known range, which spares bounds checks of `x[i]`);
- a TensorArray is a preallocated buffer of its known size, with a mask of
  the elements written (reading or stacking an unwritten one raises, as on
  the NumPy backend);
- Variables are state threaded through the function: their values come in as
  arguments and their new values go out as results (`Lowering.state`);
- `ag.print` and `ag.py_function` without results are ordered host
  callbacks; a staged `assert`, an index out of bounds and a TensorArray
  misuse are checks whose failing branch calls back to raise the NumPy
  backend's error (`runtime.backends.jax.executable` re-raises it).

What XLA cannot express (a shape that depends on the data, a loop variable
whose shape changes, a TensorArray without a size) raises StagingError
naming the op, the user's line and the fix.

This module is the driver (the walk over the graph, node by node); each kind
of node is lowered by its own mixin: op_calls, indexing, control_flow,
tensor_arrays, variables and effects, over the values of `values` and the
refusals of `refusals`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.backends.jax.control_flow import ControlFlowLowering
from runtime.backends.jax.effects import CallbackFailure, EffectLowering
from runtime.backends.jax.gradient_lists import GradientListLowering
from runtime.backends.jax.gradient_updates import GradientUpdateLowering
from runtime.backends.jax.gradients import GradientLowering
from runtime.backends.jax.indexing import IndexLowering
from runtime.backends.jax.op_calls import OpCallLowering
from runtime.backends.jax.ops import DATA_DEPENDENT
from runtime.backends.jax.random_draws import RandomLowering
from runtime.backends.jax.reduced_tests import REDUCED_TESTS, ReducedTestLowering
from runtime.backends.jax.refusals import _check_kind, _first_line, staging_error_at
from runtime.backends.jax.tensor_array_pieces import TensorArrayPieceLowering
from runtime.backends.jax.tensor_arrays import TensorArrayLowering
from runtime.backends.jax.values import TensorArrayBuffer, _register_pytree
from runtime.backends.jax.variables import VariableLowering, VariableSlot
from runtime.ir.errors import AutographError, StagingError
from runtime.ir.graph import Graph, Node
from runtime.ops.registry import get_op

__all__ = ["Lowering"]


class Lowering(ControlFlowLowering, TensorArrayLowering, TensorArrayPieceLowering, VariableLowering,
               EffectLowering, IndexLowering, RandomLowering, GradientLowering, GradientListLowering,
               GradientUpdateLowering, ReducedTestLowering, OpCallLowering):
    """Lowers one graph; `function()` is what `jax.jit` traces."""

    def __init__(self, graph: Graph, variables: list[VariableSlot], failure: CallbackFailure) -> None:
        import jax
        import jax.numpy as jnp
        from jax import lax

        self.jax, self.jnp, self.lax = jax, jnp, lax
        _register_pytree(jax)
        self.graph = graph
        self.variables = variables
        self.failure = failure
        self.var_index = {id(slot.ref()) if slot.ref() is not None else id(slot.ref): i
                          for i, slot in enumerate(variables)}
        self.ranges: dict[Node, tuple[int, int]] = {}  # loop counters with a known range
        self.taped_bounds: dict[Node, int] = {}  # taped loops (gradients) -> most iterations they run
        self.stack_writes: dict[Node, Node] = {}  # a taped loop body's stack inputs -> the loop
        self._functions: dict[str, Callable[..., Any]] = {}

    # -- entry ------------------------------------------------------------
    def function(self, initialized: tuple[bool, ...]) -> Callable[..., Any]:
        """f(*inputs, *variable values) -> outputs + new variable values, for `jax.jit`.

        Flat positional arguments and one flat list of results: what JAX's
        dispatch handles fastest.
        """
        count = len(self.graph.inputs)

        def run(*flat: Any) -> list:
            self.initialized = list(initialized)
            self.ranges = {}
            self.taped_bounds = {}
            self.stack_writes = {}
            outputs, state = self.run_graph(self.graph, list(flat[:count]), {}, list(flat[count:]))
            results = []
            for node, value in zip(self.graph.outputs, outputs):
                if isinstance(value, TensorArrayBuffer) or value is None:
                    raise staging_error_at(node.origin, "a TensorArray cannot be returned; return ta.stack()")
                results.append(self.conform(value, node.type))
            return results + list(state)

        return run

    # -- graphs -----------------------------------------------------------
    def run_graph(self, graph: Graph, args: list, outer: dict, state: list) -> tuple[list, list]:
        env: dict[Node, Any] = dict(zip(graph.inputs, args))
        for node in graph.nodes:
            _check_kind(node)
            op = node.op
            if op == "input":
                continue
            if op == "capture":
                env[node] = outer[node.attrs["outer"]]
            elif op == "constant":
                env[node] = node.attrs["value"]
            else:
                try:
                    env[node] = self.lower_node(node, env, state)
                except AutographError:
                    raise
                except (TypeError, ValueError, IndexError, self.jax.errors.JAXTypeError) as error:
                    raise self._unexpressible(node, error) from None
        return [env[o] for o in graph.outputs], state

    def lower_node(self, node: Node, env: dict, state: list) -> Any:
        op = node.op
        if op == "cond":
            return self._cond(node, env, state)
        if op == "while":
            return self._while(node, env, state)
        if op == "getitem":
            return env[node.inputs[0]][node.attrs["index"]]
        if op in REDUCED_TESTS:  # np.max(x) < c as np.all(x < c): see reduced_tests
            tested = self._reduced_test(node, env)
            if tested is not None:
                return tested
        values = [env[i] for i in node.inputs]
        method = getattr(self, "_op_" + op, None)
        if method is not None:
            return method(node, values, state)
        if op in DATA_DEPENDENT and self._data_dependent(node, values):
            raise staging_error_at(
                node.origin,
                f"{get_op(op).path or op} gives a result whose shape depends on the data, which XLA "
                f"cannot compile (jit_compile=True needs every shape before the graph runs). Instead: "
                f"{DATA_DEPENDENT[op]}; or run this function on the NumPy backend (jit_compile=False).",
            )
        return self._call(node, values)


    # -- errors ---------------------------------------------------------------
    def _unexpressible(self, node: Node, error: BaseException) -> StagingError:
        spec = get_op(node.op) if node.op not in ("getitem",) else None
        what = (spec.path if spec is not None and spec.path else node.op)
        if what == "indexing":
            what = "indexing"
        return staging_error_at(
            node.origin,
            f"{what} cannot be compiled by XLA here ({_first_line(error)}). XLA needs every shape and "
            f"every value that decides a shape before the graph runs; rewrite this line with fixed "
            f"shapes, or run this function on the NumPy backend (jit_compile=False).",
        )
