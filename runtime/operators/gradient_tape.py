"""GradientTape: TensorFlow's tape over our traces.

Inside a trace the tape remembers where in the graph it started and
stopped; `tape.gradient` runs the gradient transform
(`runtime.passes.gradient`) over the nodes recorded in between and adds
the gradient nodes to the same graph, so a train step (forward, gradient,
`w.assign_sub(lr * g)`) is one graph. Outside a trace the tape records
eagerly (`runtime.tracing.eager_tape`): every operation on a watched value or a
Variable read runs at once and is also recorded, Function calls included.

    with ag.GradientTape() as tape:
        loss = np.sum((x @ w - y) ** 2)      # w: a Variable, read and recorded
    g = tape.gradient(loss, w)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.graph import Graph, Node
from runtime.ir.origin import user_origin
from runtime.ir.structure import flatten, unflatten
from runtime.passes.gradient import Emitter, backprop
from runtime.tracing.record import constant_node
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import current_graph
from runtime.tracing.variables import Variable

__all__ = ["GradientTape", "open_tape_lines"]

# (file, line) of each `with GradientTape()` open in a trace: staged control flow inside it is allowed
_OPEN_LINES: ContextVar[tuple[tuple[str, int], ...]] = ContextVar("autograph_open_tapes", default=())


def open_tape_lines() -> tuple[tuple[str, int], ...]:
    return _OPEN_LINES.get()


def _where(depth: int = 3) -> str:
    origin = user_origin(depth)
    return f"{origin}: " if origin is not None else ""


class GradientTape:
    """Records operations between `__enter__` and `__exit__` to differentiate them later."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self.persistent = bool(persistent)
        self.watch_accessed_variables = bool(watch_accessed_variables)
        self._graph: Graph | None = None
        self._before: set[int] = set()  # id() of the graph's nodes when recording began
        self._after: set[int] | None = None  # ... and when it ended
        self._recorder: Any = None
        self._recording_token: Any = None
        self._watched_nodes: set[Node] = set()
        self._watched_variables: dict[int, Variable] = {}
        self._used = False
        self._line_token: Any = None
        self._paused: set[int] = set()  # id() of the nodes recorded under stop_recording

    # -- recording --------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        graph = current_graph()
        if graph is None:
            from runtime.tracing.eager_tape import start_recording

            self._recorder, self._recording_token = start_recording()
            graph = self._recorder.graph
        self._graph = graph
        origin = user_origin(2)
        if origin is not None and self._recorder is None:
            self._line_token = _OPEN_LINES.set((*_OPEN_LINES.get(), (origin.file, origin.line)))
        self._before = {id(n) for n in graph.nodes}
        self._paused = set()
        self._after = None
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._graph is not None:
            self._after = {id(n) for n in self._graph.nodes}
        if self._line_token is not None:
            _OPEN_LINES.reset(self._line_token)
            self._line_token = None
        if self._recording_token is not None:
            from runtime.tracing.eager_tape import stop_recording

            stop_recording(self._recording_token)
            self._recording_token = None

    def watch(self, value: Any) -> Any:
        """Watch a Tensor, Variable (or, outside a Function, an array: use the returned value)."""
        leaves, _ = flatten(value)
        if self._graph is None:
            raise RuntimeError("tape.watch is called outside the tape's `with` block; call it inside")
        watched = []
        for leaf in leaves:
            if isinstance(leaf, Variable):
                self._watched_variables[id(leaf)] = leaf
                watched.append(leaf)
            elif self._recorder is not None:
                tracked = self._recorder.watch(leaf)
                self._watched_nodes.add(tracked._node)
                watched.append(tracked)
            elif isinstance(leaf, Tensor):
                self._watched_nodes.add(leaf.node)
                watched.append(leaf)
            else:
                raise StagingError(
                    f"{_where()}tape.watch got a {type(leaf).__name__}, which is a constant inside a "
                    f"Function: watch a Tensor (an argument of the Function, or a value computed from "
                    f"one) or an ag.Variable."
                )
        return unflatten(_, watched) if self._recorder is not None else None

    def watched_variables(self) -> tuple[Variable, ...]:
        """The Variables this tape watches: those watched explicitly and (by default) those read
        while it recorded, inside staged ifs and loops too, in the order first seen."""
        found: dict[int, Variable] = dict(self._watched_variables)
        if self._graph is not None and self.watch_accessed_variables:
            for node in self.recorded():
                for read in _reads(node):
                    variable = read.attrs["ref"]()
                    if variable is not None:
                        found.setdefault(id(variable), variable)
        return tuple(found.values())

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """`with tape.stop_recording():` what runs inside is not recorded by this tape, as in
        TensorFlow: its results are constants to the tape (other tapes still record it)."""
        if self._graph is None or self._after is not None:
            raise ValueError(
                f"{_where()}tape.stop_recording() is used while the tape is not recording; use it inside "
                f"the tape's `with` block"
            )
        graph = current_graph()
        if graph is not None and graph is not self._graph:
            raise StagingError(
                f"{_where()}tape.stop_recording() inside a staged if or loop of the tape's `with` block is "
                f"not supported: the gradient recomputes that if or loop as a whole. Put the "
                f"`with tape.stop_recording():` block outside the if or loop (or open the tape inside it)."
            )
        before = {id(n) for n in self._graph.nodes}
        try:
            yield
        finally:
            self._paused.update(id(n) for n in self._graph.nodes if id(n) not in before)

    # -- differentiation ----------------------------------------------------------
    def gradient(
        self, target: Any, sources: Any, output_gradients: Any = None, unconnected_gradients: str = "none",
    ) -> Any:
        """d sum(target) / d source for every source, in the sources' structure."""
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"unconnected_gradients must be 'none' or 'zero', not {unconnected_gradients!r}")
        if self._used and not self.persistent:
            raise RuntimeError(
                "a non-persistent GradientTape computes one set of gradients; create it with "
                "ag.GradientTape(persistent=True) to call gradient more than once"
            )
        if self._graph is None:
            raise RuntimeError("tape.gradient is called on a tape that never recorded (use it in a `with` block)")
        if self._recorder is not None:
            result = self._recorder.gradient(
                self, target, sources, output_gradients, unconnected_gradients, (Emitter, backprop)
            )
        else:
            result = self._staged_gradient(target, sources, output_gradients, unconnected_gradients)
        self._used = True  # a call that raised used nothing up: fix the call and ask again
        return result

    def _staged_gradient(self, target: Any, sources: Any, output_gradients: Any, unconnected: str) -> Any:
        graph = current_graph()
        if not _within(graph, self._graph):
            raise StagingError(
                f"{_where()}tape.gradient of a tape recorded inside a Function is called outside its "
                f"trace; call it inside the Function and return the gradients."
            )
        em = Emitter(graph, user_origin(3))
        targets, seeds = self.targets(target, output_gradients, graph)
        source_leaves, tree = flatten(sources)
        source_nodes = [self.source_node(leaf) for leaf in source_leaves]
        nodes = [n for n in source_nodes if isinstance(n, Node)]
        sweep = backprop(em, self._graph, targets, seeds, nodes, self.recorded())
        results = []
        for leaf, node in zip(source_leaves, source_nodes):
            g = self.result_for(sweep, leaf, node, em)
            if g is None and unconnected == "zero":
                g = em.call("zeros_like", _like_node(leaf, node, em))
            results.append(None if g is None else Tensor(g, graph))
        return unflatten(tree, results)

    # -- shared with the eager recorder ------------------------------------------------
    def recorded(self) -> list[Node]:
        """The nodes recorded while the tape was open, in graph order."""
        after = self._after
        paused = self._paused
        return [
            n for n in self._graph.nodes
            if id(n) not in self._before and (after is None or id(n) in after) and id(n) not in paused
        ]

    def targets(self, target: Any, output_gradients: Any, graph: Graph) -> tuple[list[Node], list[Node]]:
        """The target leaves' nodes and their seeds (ones, or the given output gradients)."""
        leaves, tree = flatten(target)
        given = [None] * len(leaves) if output_gradients is None else flatten(output_gradients)[0]
        if len(given) != len(leaves):
            raise ValueError(
                f"output_gradients has {len(given)} values but the target has {len(leaves)}; give one per target"
            )
        em = Emitter(graph, user_origin(4))
        nodes, seeds = [], []
        for leaf, seed in zip(leaves, given):
            node = self.target_node(leaf)
            if node is None:
                continue
            if node.type.dtype.kind not in "fc":
                raise StagingError(
                    f"{_where(4)}the target of tape.gradient is {node.type}; only a float target has a "
                    f"gradient. Cast it first, e.g. loss.astype(np.float64)."
                )
            if seed is None:
                seeds.append(em.call("ones_like", node))
            else:
                seed_node = self.value_node(seed, graph)
                seeds.append(em.call("add", em.call("zeros_like", node), seed_node))
            nodes.append(node)
        return nodes, seeds

    def target_node(self, leaf: Any) -> Node | None:
        if isinstance(leaf, Variable):
            return None  # a Variable's own value depends on nothing recorded
        if isinstance(leaf, Tensor):
            return leaf.node
        if leaf is None:
            return None
        value = np.asarray(leaf)
        if value.dtype.kind not in "fcbiu":
            raise StagingError(f"{_where(5)}the target of tape.gradient is a {type(leaf).__name__}, not a number")
        if value.dtype.kind not in "fc":
            raise StagingError(
                f"{_where(5)}the target of tape.gradient is {value.dtype.name}; only a float target "
                f"has a gradient."
            )
        return None  # a constant: no source reaches it

    def value_node(self, value: Any, graph: Graph) -> Node:
        if isinstance(value, Tensor):
            return value.node
        return constant_node(value, graph)

    def source_node(self, leaf: Any) -> Any:
        """The node of a Tensor source, the Variable itself, or None for an int/bool source."""
        if isinstance(leaf, Variable):
            return leaf
        if isinstance(leaf, Tensor):
            if leaf.dtype.kind not in "fc":
                return None
            if leaf.node not in self._watched_nodes:
                raise StagingError(
                    f"{_where(5)}the source {leaf.name!r} of tape.gradient is not watched: call "
                    f"tape.watch({leaf.name}) inside the tape's `with` block (Variables are watched "
                    f"when read)."
                )
            return leaf.node
        raise StagingError(
            f"{_where(5)}a source of tape.gradient must be an ag.Variable or a watched float Tensor, "
            f"not a {type(leaf).__name__}{_array_hint(leaf)}"
        )

    def result_for(self, sweep: Any, leaf: Any, node: Any, em: Emitter) -> Node | None:
        if isinstance(leaf, Variable):
            if leaf.dtype.kind not in "fc":
                return None
            if not self.watch_accessed_variables and id(leaf) not in self._watched_variables:
                return None
            got = sweep.variables.get(id(leaf))
            if got is None:
                return None
            g = got[1]
            if g.type.dtype != leaf.dtype:
                g = em.node("cast", (g,), {"dtype": leaf.dtype})
            return g
        if node is None:
            return None
        g = sweep.materialized(node)
        return None if g is None else em.cast_like(g, node)


def _reads(node: Node) -> list[Node]:
    """The "read_variable" nodes of `node` and of the subgraphs it runs."""
    if node.op == "read_variable":
        return [node]
    found = []
    for value in node.attrs.values():
        if isinstance(value, Graph):
            for inner in value.nodes:
                found += _reads(inner)
    return found


def _within(graph: Graph | None, outer: Graph) -> bool:
    while graph is not None:
        if graph is outer:
            return True
        graph = graph.parent
    return False


def _like_node(leaf: Any, node: Any, em: Emitter) -> Node:
    if isinstance(leaf, Variable):
        return em.constant(np.zeros(leaf.shape, leaf.dtype))
    return node


def _array_hint(leaf: Any) -> str:
    if isinstance(leaf, (np.ndarray, np.generic, float, int)):
        return (
            "; inside a Function a NumPy value is a constant. Pass it as an argument (it becomes a "
            "Tensor) and watch it, or make it an ag.Variable."
        )
    return "."
