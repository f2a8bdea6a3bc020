"""Eager recording: a GradientTape outside any Function.

NumPy code on plain arrays is invisible to us, so the values the tape must
see are marked: Variable reads and `x = tape.watch(x)` give `TapedArray`s,
ndarray subclasses that hold their value *and* a node of the tape's graph.
Every NumPy function, ufunc, operator or index applied to one is staged
into that graph (the same dispatch a trace uses) and computed at once with
the ops' NumPy implementations, so the program sees ordinary values while the
tape keeps the whole computation. A Function called while recording runs
its converted code into the tape's graph the same way, control flow and
Variables included. `tape.gradient` then differentiates that graph.

What the tape cannot see is refused, never skipped: an array made from a
TapedArray by an ndarray method the tape does not follow, or a plain array
given as a source, is a clear error.
"""

from __future__ import annotations

import copy
from contextvars import ContextVar
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.graph import Graph, Node
from runtime.ir.origin import user_origin
from runtime.ir.structure import flatten, unflatten
from runtime.ops.graph_copy import clone_into
from runtime.ops.registry import get_op
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import building, step_aside

__all__ = ["TapedArray", "Recorder", "start_recording", "stop_recording", "active_recorder"]

_ACTIVE: ContextVar[Recorder | None] = ContextVar("autograph_eager_tape", default=None)


def active_recorder() -> Recorder | None:
    """The recorder of the innermost eager GradientTape being recorded, if any."""
    return _ACTIVE.get()


def start_recording() -> tuple[Recorder, Any]:
    """Begin recording (nested tapes share the outer tape's recorder)."""
    recorder = _ACTIVE.get() or Recorder()
    recorder.depth += 1
    step_aside(1)  # Function calls take the general path, which asks for the recorder
    return recorder, _ACTIVE.set(recorder)


def stop_recording(token: Any) -> None:
    recorder = _ACTIVE.get()
    if recorder is not None:
        recorder.depth -= 1
    step_aside(-1)
    _ACTIVE.reset(token)


class TapedArray(np.ndarray):
    """An array whose value the tape recorded (`_node` in `_recorder.graph`)."""

    _node: Node | None = None
    _recorder: Recorder | None = None
    __autograph_plain_data__ = True  # its values are plain data: a graph input takes them as they are

    def __array_finalize__(self, obj: Any) -> None:
        self._node = None  # a view NumPy made without asking us: not recorded
        self._recorder = getattr(obj, "_recorder", None)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        from runtime.tracing.dispatch import stage_ufunc

        return self._recorder.apply(
            lambda *a, **k: stage_ufunc(ufunc, method, a, k), inputs, kwargs, f"np.{ufunc.__name__}",
            plain=getattr(ufunc, method),
        )

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        from runtime.tracing.dispatch import stage_function

        return self._recorder.apply(
            lambda *a, **k: stage_function(func, a, k), args, kwargs, f"np.{func.__name__}", plain=func,
        )

    def __getitem__(self, key: Any) -> Any:
        from runtime.tracing.dispatch import stage_index

        return self._recorder.apply(
            lambda x, k: stage_index(x, k), (self, key), {}, "indexing", plain=lambda x, k: x[k],
        )

    def __iter__(self) -> Any:
        """Rows the tape records (NumPy's own iteration would hand out unrecorded views)."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    def __setitem__(self, key: Any, value: Any) -> None:
        raise StagingError(
            f"{_where()}an array recorded by a GradientTape cannot be changed in place (the tape would "
            f"not see it); build a new array, e.g. with np.where."
        )

    def _method(name: str):  # noqa: N805 - builds methods below
        def method(self: TapedArray, *args: Any, **kwargs: Any) -> Any:
            from runtime.tracing.dispatch import stage_method

            return self._recorder.apply(
                lambda *a, **k: stage_method(name, a, k), (self, *args), kwargs, f"ndarray.{name}",
                plain=lambda x, *a, **k: getattr(x, name)(*a, **k),
            )

        return method

    # NumPy's own methods pass out= or make views the tape would not see: route them through the
    # NumPy functions, which dispatch to __array_function__
    sum = _method("sum")
    mean = _method("mean")
    std = _method("std")
    var = _method("var")
    max = _method("max")
    min = _method("min")
    prod = _method("prod")
    cumsum = _method("cumsum")
    cumprod = _method("cumprod")
    reshape = _method("reshape")
    ravel = _method("ravel")
    squeeze = _method("squeeze")
    copy = _method("copy")
    dot = _method("dot")
    clip = _method("clip")
    swapaxes = _method("swapaxes")
    del _method

    def _refuse_in_place(name: str):  # noqa: N805 - builds methods below
        def method(self: TapedArray, *args: Any, **kwargs: Any) -> Any:
            raise StagingError(
                f"{_where()}ndarray.{name} changes an array a GradientTape recorded in place, which the "
                f"tape cannot follow; use the NumPy function that returns a new array (np.{name} where "
                f"there is one)."
            )

        return method

    sort = _refuse_in_place("sort")
    fill = _refuse_in_place("fill")
    put = _refuse_in_place("put")
    resize = _refuse_in_place("resize")
    partition = _refuse_in_place("partition")
    del _refuse_in_place

    def transpose(self, *axes: Any) -> Any:
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return np.transpose(self, tuple(axes) if axes else None)

    @property
    def T(self) -> Any:  # noqa: N802 - NumPy's name
        return np.transpose(self)

    def flatten(self, order: str = "C") -> Any:
        return np.ravel(self, order)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        return self._recorder.apply(
            lambda x: x.astype(dtype), (self,), {}, "astype", plain=lambda x: x.astype(dtype, *args, **kwargs),
        )

    def numpy(self) -> np.ndarray:
        return np.asarray(self)


def _where() -> str:
    origin = user_origin(3)
    return f"{origin}: " if origin is not None else ""


class Recorder:
    """The graph an eager tape records into and the value of every node in it."""

    def __init__(self) -> None:
        self.graph = Graph("tape")
        self.graph.evaluated_in_order = True  # gradient passes append, never insert, into it
        self.values: dict[Node, Any] = {}
        self.done = 0  # nodes evaluated so far
        self.depth = 0

    @property
    def recording(self) -> bool:
        return self.depth > 0 and _ACTIVE.get() is self

    # -- recording ----------------------------------------------------------------
    def apply(self, stage: Any, args: Any, kwargs: dict, what: str, plain: Any) -> Any:
        """Stage `stage(*args, **kwargs)` on the recorded values, compute it, return TapedArrays.

        Once the tape stopped recording, `plain` computes it on plain arrays instead."""
        if not self.recording:
            plain_args, plain_kwargs = _plain((args, kwargs))
            return plain(*plain_args, **plain_kwargs)
        with building(self.graph):
            staged_args, staged_kwargs = self._tensors((args, kwargs), what)
            result = stage(*staged_args, **staged_kwargs)
        self.evaluate()
        return self.wrap(result)

    def call_function(self, call: Any, args: tuple, kwargs: dict) -> Any:
        """A Function called while recording: its converted code runs into the tape's graph."""
        with building(self.graph):
            staged_args, staged_kwargs = self._tensors((args, kwargs), "a Function call")
            result = call(staged_args, staged_kwargs)
        self.evaluate()
        return self.wrap(result)

    def call_graph(self, graph: Graph, inputs: list) -> list:
        """A ConcreteFunction called while recording: its graph's nodes join the tape's, and run."""
        mapping: dict[Node, Node] = {}
        for node, value in zip(graph.inputs, inputs):
            if isinstance(value, TapedArray) and value._node is not None and value._recorder is self:
                mapping[node] = value._node
            else:
                array = np.array(value)
                mapping[node] = self.graph.add_node("constant", (), {"value": array}, _type(array), name="Const")
        env = clone_into(self.graph, graph, mapping)
        self.evaluate()
        return [self.wrap(Tensor(env[o], self.graph)) for o in graph.outputs]

    def read_variable(self, variable: Any) -> Any:
        with building(self.graph):
            tensor = variable.__autograph_tensor__()
        self.evaluate()
        return self.wrap(tensor)

    def watch(self, value: Any) -> TapedArray:
        if isinstance(value, TapedArray) and value._node is not None:
            return value
        array = np.asarray(value)
        if array.dtype.kind not in "fc":
            raise StagingError(
                f"{_where()}tape.watch got a {array.dtype.name} value; only float values have gradients"
            )
        node = self.graph.add_node("constant", (), {"value": array.copy()}, _type(array), name="watched")
        self.values[node] = node.attrs["value"]
        return self._taped(node.attrs["value"], node)

    def _tensors(self, tree: Any, what: str) -> Any:
        leaves, structure = flatten(tree)
        converted = []
        for leaf in leaves:
            if isinstance(leaf, TapedArray):
                if leaf._node is None or leaf._recorder is not self:
                    raise StagingError(
                        f"{_where()}{what} got an array that the GradientTape did not see being made "
                        f"(an ndarray method or attribute it does not follow, such as .flat or a view of a "
                        f"recorded array, or an array of another tape); use the NumPy function "
                        f"(np.transpose, np.reshape, ...) so the tape records it."
                    )
                converted.append(Tensor(leaf._node, self.graph))
            else:
                converted.append(leaf)
        return unflatten(structure, converted)

    def wrap(self, result: Any) -> Any:
        leaves, structure = flatten(result)
        wrapped = []
        for leaf in leaves:
            if isinstance(leaf, Tensor) and leaf.graph is self.graph:
                wrapped.append(self._taped(self.values[leaf.node], leaf.node))
            elif hasattr(leaf, "__autograph_tensor__") and not isinstance(leaf, Tensor) and not hasattr(
                leaf, "assign"
            ):
                wrapped.append(leaf)  # a TensorArray: stays staged
            else:
                wrapped.append(leaf)
        return unflatten(structure, wrapped)

    def _taped(self, value: Any, node: Node) -> Any:
        array = np.asarray(value)
        if array.dtype == object:
            return value
        taped = array.view(TapedArray)
        taped._node = node
        taped._recorder = self
        return taped

    # -- running what was recorded --------------------------------------------------
    def evaluate(self) -> None:
        """Compute every node added since the last call, with the ops' NumPy implementations."""
        nodes = self.graph.nodes
        while self.done < len(nodes):
            node = nodes[self.done]
            if node not in self.values:
                self.values[node] = _run_node(node, self.values, {})
            self.done += 1

    def gradient(
        self, tape: Any, target: Any, sources: Any, output_gradients: Any, unconnected: str,
        transform: tuple[Any, Any],
    ) -> Any:
        """The gradients by the gradient transform `transform` = (Emitter, backprop), which the
        tape (a layer above tracing) hands in."""
        Emitter, backprop = transform  # noqa: N806 - a class, named as where it comes from

        self.evaluate()
        for leaf in flatten(target)[0]:
            if not isinstance(leaf, TapedArray) and leaf is not None and not hasattr(leaf, "assign"):
                raise StagingError(
                    f"{_where()}the target of tape.gradient is a plain {type(leaf).__name__}: the tape did "
                    f"not record how it was computed (NumPy code on arrays that did not come from the "
                    f"tape, such as the original array given to tape.watch instead of the value it "
                    f"returned). Compute it from Variables, watched values and Function calls inside "
                    f"the tape's `with` block."
                )
        em = Emitter(self.graph, user_origin(3))
        with building(self.graph):
            target_t = self._tensors(target, "tape.gradient")
            seeds_t = None if output_gradients is None else self._tensors(output_gradients, "tape.gradient")
            targets, seeds = tape.targets(target_t, seeds_t, self.graph)
        source_leaves, tree = flatten(sources)
        nodes = [self._source(leaf, tape) for leaf in source_leaves]
        sweep = backprop(em, self.graph, targets, seeds, [n for n in nodes if isinstance(n, Node)],
                         tape.recorded())
        results = []
        for leaf, node in zip(source_leaves, nodes):
            g = tape.result_for(sweep, leaf, node, em)
            results.append(g)
        self.evaluate()
        values = []
        for leaf, g in zip(source_leaves, results):
            if g is None:
                values.append(None if unconnected == "none" else np.zeros(np.shape(leaf), _dtype_of(leaf)))
            elif self.recording:  # an outer tape records: it differentiates the gradient too
                values.append(self._taped(self.values[g], g))
            else:
                value = np.asarray(self.values[g])
                values.append(value[()] if value.ndim == 0 else value)
        return unflatten(tree, values)

    def _source(self, leaf: Any, tape: Any) -> Any:
        if hasattr(leaf, "assign") and hasattr(leaf, "read_value"):
            return leaf  # a Variable
        if isinstance(leaf, TapedArray) and leaf._node is not None and leaf._recorder is self:
            if leaf.dtype.kind not in "fc":
                return None
            if leaf._node not in tape._watched_nodes and leaf._node.op == "constant":
                raise StagingError(f"{_where()}this source of tape.gradient is not watched by this tape")
            return leaf._node
        raise StagingError(
            f"{_where()}a source of tape.gradient outside a Function must be an ag.Variable or the "
            f"value tape.watch returned (write `x = tape.watch(x)`): NumPy operations on a plain "
            f"{type(leaf).__name__} are invisible to the tape."
        )


def _dtype_of(leaf: Any) -> np.dtype:
    return leaf.dtype if hasattr(leaf, "dtype") else np.asarray(leaf).dtype


def _type(array: np.ndarray):
    from runtime.ir.types import TensorType

    return TensorType(array.dtype, array.shape)


def _plain(tree: Any) -> Any:
    leaves, structure = flatten(tree)
    return unflatten(structure, [np.asarray(v) if isinstance(v, TapedArray) else v for v in leaves])


def _run_node(node: Node, env: dict[Node, Any], outer: dict[Node, Any]) -> Any:
    op = node.op
    if op == "capture":
        return outer[node.attrs["outer"]] if node.attrs["outer"] in outer else env[node.attrs["outer"]]
    if op == "constant":
        return node.attrs["value"]
    if op == "cond":
        branch = node.attrs["true"] if env[node.inputs[0]] else node.attrs["false"]
        return tuple(_run_graph(branch, [], {**outer, **env}))
    if op == "while":
        return _run_while(node, env, outer)
    spec = get_op(op)
    values = [env[i] for i in node.inputs]
    if spec.inplace and values:
        values[0] = copy.copy(values[0])
    return spec.impl(*values, **node.attrs)


def _run_graph(graph: Graph, args: list, outer: dict[Node, Any]) -> list:
    env: dict[Node, Any] = dict(zip(graph.inputs, args))
    for node in graph.nodes:
        if node.op != "input":
            env[node] = _run_node(node, env, outer)
    return [env[o] for o in graph.outputs]


def _run_while(node: Node, env: dict[Node, Any], outer: dict[Node, Any]) -> tuple:
    cond, body = node.attrs["cond"], node.attrs["body"]
    limit = node.attrs.get("maximum_iterations")
    scope = {**outer, **env}
    values = [copy.copy(env[i]) if i.type.dtype == object else env[i] for i in node.inputs[: len(body.inputs)]]
    iterations = 0
    while limit is None or iterations < limit:
        if not _run_graph(cond, values, scope)[0]:
            break
        values = _run_graph(body, values, scope)
        iterations += 1
    return tuple(values)
