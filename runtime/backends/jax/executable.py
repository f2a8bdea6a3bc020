"""JaxExecutable: a Graph lowered to JAX and run with `jax.jit`, with the NumPy backend's semantics.

- 64-bit dtypes are kept: the graph is traced and run under `jax.enable_x64`,
  a context manager, so the user's own JAX code keeps its settings;
- NumPy inputs give NumPy outputs (writable copies, as the NumPy backend
  returns); `jax.Array` inputs give `jax.Array` outputs, left on their
  devices and with the shardings XLA propagates from the inputs';
- Variables go in as arguments and their new values are assigned after the
  call, so state survives calls as on the NumPy backend;
- an error a host callback raised (a failed staged assert, an index out of
  bounds, a py_function's own exception) is raised again as itself, not as
  JAX's runtime error.

The graph is lowered when the executable is made (so what XLA cannot express
fails the trace); XLA compiles it at the first call, per input shapes.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from runtime.backends.jax.effects import CallbackFailure
from runtime.backends.jax.engine import is_device_array
from runtime.backends.jax.lower import Lowering
from runtime.backends.jax.refusals import _check_kind
from runtime.backends.jax.variables import variables_of
from runtime.ir.errors import AutographError, FailedPreconditionError
from runtime.ir.graph import Graph
from runtime.ops.registry import get_op

__all__ = ["JaxExecutable"]

_RAISED = "_autograph_raised"


class _QuietOwnErrors(logging.Filter):
    """JAX logs every exception a callback raises; ours are raised again to the caller instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        info = record.exc_info
        return not (info and info[1] is not None and getattr(info[1], _RAISED, False))


_FILTER_INSTALLED = [False]


def _install_filter() -> None:
    if not _FILTER_INSTALLED[0]:
        for name in ("jax._src.callback", "jax._src.debugging"):
            logging.getLogger(name).addFilter(_QuietOwnErrors())
        _FILTER_INSTALLED[0] = True


def x64(jax: Any) -> Any:
    """JAX's 64-bit mode as a context manager, for our calls only (its name moved between versions)."""
    return _enable_x64(jax)(True)


def _enable_x64(jax: Any) -> Any:
    enable = getattr(jax, "enable_x64", None)  # a config State: never test its truth
    if enable is None:
        from jax.experimental import enable_x64 as enable
    return enable


def _runtime_error(jax: Any) -> type:
    return getattr(jax.errors, "JaxRuntimeError", None) or __import__("jaxlib.xla_extension").xla_extension.XlaRuntimeError


def clean(error: BaseException) -> BaseException:
    """Our error as we raised it: without the note and cause JAX adds to what passes through it."""
    notes = getattr(error, "__notes__", None)
    if notes:
        error.__notes__ = [n for n in notes if "JAX_TRACEBACK_FILTERING" not in n]
    error.__cause__ = None
    error.__suppress_context__ = True
    return error


def _effectful(graph: Graph) -> bool:
    for node in graph.nodes:
        if node.op in ("print", "py_function"):
            return True
        if any(isinstance(v, Graph) and _effectful(v) for v in node.attrs.values()):
            return True
    return False


class JaxExecutable:
    """Call with the graph's flat inputs; returns the list of outputs."""

    backend = "jax"

    def __init__(self, graph: Graph) -> None:
        import jax

        from runtime.passes import optimize

        _install_filter()
        self.graph = graph
        self.lowered_graph = optimize(graph)
        self.variables = variables_of(self.lowered_graph)
        self.failure = CallbackFailure()
        self._effects = _effectful(self.lowered_graph)
        self._jitted: dict[tuple, Any] = {}
        self._jax = jax
        self._lowered = None
        self._lowered_flags: tuple | None = None  # the Variables' state the lowering was made for
        self._compiled = None  # XLA's executable of `_lowered`, built at the first call it serves
        self._direct = None  # jit of the lowering, once a call showed plain calls need nothing else
        self._x64 = _enable_x64(jax)
        self._x64_state = self._x64 if hasattr(type(self._x64), "value") else None  # a config State
        self._scalars = tuple(getattr(node.type, "rank", None) == 0 for node in graph.outputs)
        self._one_array = self._scalars == (False,)  # one output, not 0-d: a writable copy of it
        types = [node.type for node in graph.inputs]
        for node in graph.inputs:
            _check_kind(node)
        ready = all(flag or slot.initialized_here for flag, slot in zip(self._flags(), self.variables))
        if ready and all(t.is_fully_defined and t.dtype != object for t in types):
            self._lower()  # now: what XLA cannot express fails the trace, not the first call

    def _lower(self) -> None:
        """Trace and lower the graph for its input types (XLA compiles it at the first call)."""
        jax = self._jax
        specs = [jax.ShapeDtypeStruct(n.type.shape, n.type.dtype) for n in self.graph.inputs]
        state = [jax.ShapeDtypeStruct(s.type.shape, s.type.dtype) for s in self.variables]
        flags = self._flags()
        with x64(jax):
            try:
                self._lowered = self._function(flags).lower(*specs, *state)
            except AutographError as error:
                raise clean(error) from None
        self._lowered_flags = flags

    def _flags(self) -> tuple[bool, ...]:
        flags = []
        for slot in self.variables:
            variable = slot.ref()
            flags.append(variable is not None and variable.is_initialized)
        return tuple(flags)

    def _function(self, flags: tuple[bool, ...]) -> Any:
        jitted = self._jitted.get(flags)
        if jitted is None:
            lowering = Lowering(self.lowered_graph, self.variables, self.failure)
            jitted = self._jitted[flags] = self._jax.jit(lowering.function(flags))
        return jitted

    def _state(self) -> list:
        values = []
        read = get_op("read_variable").impl
        for slot in self.variables:
            variable = slot.ref()
            if variable is not None and not variable.is_initialized:
                values.append(np.zeros(slot.type.shape, slot.type.dtype))
            else:
                values.append(read(slot.ref, slot.name, slot.origin))
        return values

    def __call__(self, *args: Any) -> list:
        if self._direct is not None:  # the common call, in a few lines: see _call
            for value in args:
                if value.__class__ is not np.ndarray and not isinstance(value, np.generic):
                    return self._call(args)
            return self.call_numpy(*args)
        return self._call(args)

    def call_numpy(self, *args: Any) -> list:
        """A call whose arguments are NumPy arrays or scalars of the traced dtypes and shapes (a
        Function's fast call has tested them): once `_direct` is known, XLA's executable at once."""
        direct = self._direct
        if direct is None:
            return self._call(args)
        state = self._x64_state
        if state is not None and state.value:  # 64-bit mode on already (reading it costs less than setting it)
            outputs = direct(*args)
        else:
            with self._x64(True):
                outputs = direct(*args)
        if self._one_array:
            return [np.array(outputs[0])]
        # a 0-d result leaves as a NumPy scalar (the caller takes [()]): no writable copy needed
        return [np.asarray(o) if scalar else np.array(o) for o, scalar in zip(outputs, self._scalars)]

    def _call(self, args: tuple) -> list:
        jax = self._jax
        plain = True  # NumPy values only: the results go back as NumPy values too
        for value in args:
            if value.__class__ is not np.ndarray and not isinstance(value, np.generic):
                plain = not is_device_array(value)
                if not plain:
                    break
        if self.variables:
            flags = self._flags()
            flat = (*args, *self._state())
        else:
            flags, flat = (), args
        failure = self.failure
        if failure.errors:
            failure.errors.clear()
        with x64(jax):
            try:
                if plain and flags == self._lowered_flags and not (failure.used or self._effects):
                    # NumPy values of the traced types: XLA's executable of the lowering made at
                    # the trace, called directly (jit would lower again, and dispatches slower);
                    # not with host callbacks, whose ordering token an AOT call does not pass
                    compiled = self._compiled
                    if compiled is None:
                        compiled = self._compiled = self._lowered.compile()
                        if not self.variables:  # no state, no callbacks: later calls go straight, by
                            # jit's dispatch (quicker than the executable's; its caches hold this lowering)
                            self._direct = self._function(flags)
                    results = compiled(*flat)
                else:  # jax.Arrays (their shardings decide the compilation) or another state
                    results = self._function(flags)(*flat)
                if self._effects:
                    jax.effects_barrier()
                if failure.used:  # a check may fail: it raises at this call, not at a later read
                    results = jax.block_until_ready(results)
                if plain:
                    results = [np.array(o) for o in results]  # writable, as the NumPy backend's are
            except AutographError as error:
                raise clean(error) from None
            except Exception as error:
                if failure.errors:
                    raised = failure.errors[0]
                    failure.errors.clear()
                    raise clean(raised) from None
                if isinstance(error, _runtime_error(jax)):
                    raise FailedPreconditionError(f"XLA failed to run graph {self.graph.name!r}: {error}") from None
                raise
        count = len(self.graph.outputs)
        if self.variables:
            assign = get_op("assign_variable").impl
            for slot, value in zip(self.variables, results[count:]):
                if slot.assigned or slot.initialized_here:
                    assign(np.array(value), slot.ref, slot.name, slot.origin, "assign")  # a copy: ours
            results = results[:count]
        return results

    # -- reading ------------------------------------------------------------
    def lowered_text(self, dialect: str = "stablehlo") -> str:
        """What XLA compiles: StableHLO text ("stablehlo"), or the jaxpr ("jaxpr")."""
        if self._lowered is None and all(n.type.is_fully_defined for n in self.graph.inputs):
            self._lower()
        if self._lowered is None:
            raise ValueError(
                f"graph {self.graph.name!r} has inputs of unknown shape: it is lowered per call shape, "
                f"so there is no single lowered text; trace it with fixed shapes to read one."
            )
        if dialect == "stablehlo":
            return self._lowered.as_text()
        if dialect == "jaxpr":
            jax = self._jax
            types = [node.type for node in self.graph.inputs]
            specs = [jax.ShapeDtypeStruct(t.shape, t.dtype) for t in types]
            state = [jax.ShapeDtypeStruct(s.type.shape, s.type.dtype) for s in self.variables]
            with x64(jax):
                return str(jax.make_jaxpr(self._function(self._flags()))(*specs, *state))
        raise ValueError(f"dialect must be 'stablehlo' or 'jaxpr', not {dialect!r}")

    def __repr__(self) -> str:
        return f"<JaxExecutable {self.graph.name}>"
