"""Control flow lowered to lax: `cond` -> `lax.cond` (or both branches and a select
when they are a few pure elementwise ops), `while` -> `lax.while_loop`, or
`lax.fori_loop` / `lax.scan` when a counter from 0 to a known bound alone ends it
(its counter then has a known range, which spares bounds checks of `x[i]`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.backends.jax.gradient_lists import backward_of, counters_from_zero
from runtime.backends.jax.refusals import _first_line, staging_error_at
from runtime.backends.jax.values import TensorArrayBuffer, _Collector, _is_static, _shape
from runtime.ir.graph import Graph, Node
from runtime.ops.calls import Weak, resolve_call
from runtime.ops.registry import get_op

__all__ = ["ControlFlowLowering"]


class ControlFlowLowering:
    """cond and while of `Lowering` (it provides jnp, lax, ranges, run_graph and conform)."""

    def _cond(self, node: Node, env: dict, state: list) -> tuple:
        pred = env[node.inputs[0]]
        types = node.type

        def branch(graph: Graph) -> Callable[..., Any]:
            def run(carried: tuple) -> tuple:
                outputs, new_state = self.run_graph(graph, [], env, list(carried))
                return tuple(self.conform(o, t) for o, t in zip(outputs, types)), tuple(new_state)

            return run

        true, false = node.attrs["true"], node.attrs["false"]
        if _is_static(pred):
            outputs, new_state = branch(true if bool(np.asarray(pred)) else false)(tuple(state))
        elif _selectable(node):
            # both branches are a few pure elementwise ops: computing both and selecting is
            # what XLA runs fastest (a conditional costs more than such a branch)
            on_true, _ = branch(true)(tuple(state))
            on_false, _ = branch(false)(tuple(state))
            pred = self.jnp.asarray(pred).reshape(()).astype(bool)
            return tuple(self.lax.select(pred, *self.jnp.broadcast_arrays(a, b)) if not _is_static(a) or not _is_static(b)
                         or not np.array_equal(a, b) else a
                         for a, b in zip(on_true, on_false))
        else:
            if pred.shape != ():
                pred = self.jnp.asarray(pred).reshape(())
            try:
                outputs, new_state = self.lax.cond(pred.astype(bool), branch(true), branch(false), tuple(state))
            except TypeError as error:
                raise staging_error_at(
                    node.origin,
                    f"the two branches of this staged if give values of different shapes or kinds, which "
                    f"XLA cannot compile ({_first_line(error)}); make both branches give the same shapes, "
                    f"or run this function on the NumPy backend (jit_compile=False).",
                ) from None
        state[:] = list(new_state)
        return tuple(outputs)

    def _while(self, node: Node, env: dict, state: list) -> tuple:
        cond, body = node.attrs["cond"], node.attrs["body"]
        limit = node.attrs.get("maximum_iterations")
        count = len(body.inputs)
        init = [self._loop_value(env[i], b, node) for i, b in zip(node.inputs[:count], body.inputs)]
        jnp, lax = self.jnp, self.lax

        def step(values: tuple, carried: tuple) -> tuple:
            outputs, new_state = self.run_graph(body, list(values), env, list(carried))
            result = []
            for value, inp, before in zip(outputs, body.inputs, values):
                value = self._loop_value(value, inp, node)
                if _shape(value) != _shape(before):
                    taped = backward_of(node)  # a gradient's backward loop: name the loop it reverses
                    raise staging_error_at(
                        node.origin if taped is None else taped.attrs["taped_from"].origin,
                        f"the {'gradient of a ' if taped is not None else ''}loop variable '{inp.name}' changes shape in this loop (from {_shape(before)} "
                        f"to {_shape(value)}), and XLA needs one shape for every iteration: give it its "
                        f"final shape before the loop (preallocate and write into it, or use a TensorArray "
                        f"of known size), or run this function on the NumPy backend (jit_compile=False).",
                    )
                result.append(value)
            return tuple(result), tuple(new_state)

        counted = self._counted(node, env) if limit is None else None
        self._known_ranges(node, env, limit if counted is None else counted[1])
        if counted is not None:
            index, trips = counted
            self.ranges[body.inputs[index]] = (0, trips - 1)
            stacked = _stacked_writes(body, index, init, trips)
            if stacked:
                return self._scan(node, init, state, trips, stacked, step)
            values, new_state = lax.fori_loop(
                0, trips, lambda _, carry: step(*carry), (tuple(init), tuple(state))
            )
            state[:] = list(new_state)
            return tuple(values)

        # maximum_iterations counts iterations: a loop variable from 0 by 1 already does (a taped loop's)
        own = counters_from_zero(node) if limit is not None else []
        own = [k for k in own if np.dtype(body.inputs[k].type.dtype).kind in "iu"
               and np.iinfo(body.inputs[k].type.dtype).max > limit][:1]

        def test(carry: tuple) -> Any:
            values, carried, *iterations = carry
            outputs, _ = self.run_graph(cond, list(values), env, list(carried))
            keep = jnp.asarray(outputs[0]).reshape(()).astype(bool)
            if limit is None:
                return keep
            return keep & ((values[own[0]] if own else iterations[0]) < limit)

        def loop(carry: tuple) -> tuple:
            values, carried, *iterations = carry
            values, carried = step(values, carried)
            return (values, carried, *(i + 1 for i in iterations))

        counter = () if limit is None or own else (jnp.int64(0),)
        values, new_state, *_ = lax.while_loop(test, loop, (tuple(init), tuple(state), *counter))
        state[:] = list(new_state)
        return tuple(values)

    def _known_ranges(self, node: Node, env: dict, bound: int | None) -> None:
        """The ranges of the counters of a gradient's loops: a taped loop's (it runs at most
        `bound` times, so a counter from 0 by 1 stays below it) and the backward loop's, which
        counts the taped loop's iterations down."""
        body = node.attrs["body"]
        taped_from = node.attrs.get("taped_from")
        if taped_from is not None:
            for k, start in enumerate(node.inputs[: len(body.inputs)]):
                if start.op == "ta_new" and start not in taped_from.inputs:  # a stack the gradient added
                    self.stack_writes[body.inputs[k]] = node
        bound = self.taped_bounds.get(node, bound)  # a bound its stacks found (gradient_lists)
        if taped_from is not None and bound is not None:
            self.taped_bounds[node] = bound
            for k in counters_from_zero(node):
                self.ranges[body.inputs[k]] = (0, bound - 1)
            return
        backward = self.backward_counter(node, env)
        if backward is not None:
            self.ranges[body.inputs[0]] = (backward[0], backward[1] - 1)

    def _scan(self, node: Node, init: list, state: list, trips: int, stacked: list[int], step: Callable) -> tuple:
        """A counted loop that writes TensorArrays at its counter as `lax.scan`: each such
        TensorArray is the scan's stacked output instead of a buffer carried through the loop."""
        jnp, lax = self.jnp, self.lax
        kept = [k for k in range(len(init)) if k not in stacked]

        def scan_step(carry: tuple, _: Any) -> tuple:
            kept_values, carried = carry
            values = list(init)
            for k, value in zip(kept, kept_values):
                values[k] = value
            for k in stacked:
                values[k] = _Collector(init[k].size)
            new_values, new_state = step(tuple(values), carried)
            rows = tuple(new_values[k].value for k in stacked)
            return (tuple(new_values[k] for k in kept), new_state), rows

        (kept_values, new_state), rows = lax.scan(
            scan_step, (tuple(init[k] for k in kept), tuple(state)), None, length=trips
        )
        state[:] = list(new_state)
        values = list(init)
        for k, value in zip(kept, kept_values):
            values[k] = value
        for k, written in zip(stacked, rows):
            buffer = init[k]
            if buffer.size == trips:
                values[k] = TensorArrayBuffer(written, np.ones((trips,), bool), trips)  # static: no check
            else:
                items = lax.dynamic_update_slice_in_dim(buffer.items, written, 0, 0)
                mask = lax.dynamic_update_slice_in_dim(buffer.written, jnp.ones((trips,), bool), 0, 0)
                values[k] = TensorArrayBuffer(items, mask, buffer.size)
        return tuple(values)

    def _loop_value(self, value: Any, inp: Node, loop: Node) -> Any:
        """A loop variable as the carry holds it: a JAX array of the variable's dtype."""
        if isinstance(value, TensorArrayBuffer) or inp.type.dtype == object:
            if isinstance(value, TensorArrayBuffer) and value.items is None:
                raise staging_error_at(loop.origin, "cannot tell the element shape of a TensorArray this loop carries")
            return value
        return self.jnp.asarray(value, inp.type.dtype)

    def _counted(self, loop: Node, env: dict) -> tuple[int, int] | None:
        """(counter index, trip count) when a counter from 0 in steps of 1 below a known bound alone ends the loop."""
        cond, body = loop.attrs["cond"], loop.attrs["body"]
        test = cond.outputs[0]
        if test.op != "less" or any(n.op not in ("input", "capture", "constant", "less") for n in cond.nodes):
            return None
        (counter, bound), _ = resolve_call(test.inputs, test.attrs)
        if not isinstance(counter, Node) or counter.op != "input":
            return None
        index = cond.inputs.index(counter)
        if isinstance(bound, Node):
            bound = bound.attrs["value"] if bound.op == "constant" else (
                env.get(bound.attrs["outer"]) if bound.op == "capture" else None)
        if not isinstance(bound, (int, np.integer, np.ndarray)) or np.ndim(bound) != 0:
            return None
        init = env[loop.inputs[index]]
        if not _is_static(init) or int(np.asarray(init)) != 0:
            return None
        step = body.outputs[index]
        if step.op != "add":
            return None
        args, kwargs = resolve_call(step.inputs, step.attrs)
        if kwargs or set(map(_key, args)) != {_key(body.inputs[index]), _key(1)}:
            return None
        if np.dtype(body.inputs[index].type.dtype).kind not in "iu":
            return None
        return index, max(int(bound), 0)


_SELECT_LIMIT = 24  # nodes in both branches, nested ones included


def _selectable(cond: Node) -> bool:
    """Whether a cond may run both branches and select: only pure elementwise work, which
    cannot fail or show anything whichever branch the data picks (no checks, no effects)."""
    if any(t.dtype == object for t in cond.type):
        return False
    count = 0

    def pure(graph: Graph) -> bool:
        nonlocal count
        for node in graph.nodes:
            count += 1
            if node.op in ("input", "capture", "constant", "getitem"):
                continue
            if node.op == "cond":
                if not (pure(node.attrs["true"]) and pure(node.attrs["false"])):
                    return False
                continue
            spec = get_op(node.op)
            if spec.effectful or spec.stateful or not (isinstance(spec.numpy, np.ufunc) or node.op == "cast"):
                return False
        return count <= _SELECT_LIMIT

    return pure(cond.attrs["true"]) and pure(cond.attrs["false"])


def _stacked_writes(body: Graph, counter: int, init: list, trips: int) -> list[int]:
    """Loop variables that are TensorArrays written once per iteration at the counter, and
    otherwise untouched by the loop: `lax.scan` can stack their rows (see Lowering._scan)."""
    found = []
    captured = _captured_anywhere(body)
    for k, inp in enumerate(body.inputs):
        buffer = init[k]
        if not isinstance(buffer, TensorArrayBuffer) or buffer.items is None or buffer.size < trips:
            continue
        users = [n for n in body.nodes if any(i is inp for i in n.inputs)]
        if len(users) != 1 or inp in captured:
            continue
        write = users[0]
        if write.op != "ta_write" or write.inputs[0] is not inp or write.inputs[1] is not body.inputs[counter]:
            continue
        if body.outputs[k] is not write or write in captured:
            continue
        if any(any(i is write for i in n.inputs) for n in body.nodes) or sum(o is write for o in body.outputs) != 1:
            continue
        shape = write.inputs[2].type.shape
        if shape is None or tuple(shape) != tuple(buffer.items.shape[1:]):
            continue
        found.append(k)
    return found


def _captured_anywhere(graph: Graph) -> set:
    """The nodes of `graph` that a subgraph of it (at any depth) captures."""
    found: set = set()

    def walk(g: Graph) -> None:
        for node in g.nodes:
            for value in node.attrs.values():
                if isinstance(value, Graph):
                    for inner in value.nodes:
                        if inner.op == "capture":
                            found.add(inner.attrs["outer"])
                    walk(value)

    walk(graph)
    return found


def _key(item: Any) -> Any:
    if isinstance(item, Node):
        return ("node", id(item))
    if isinstance(item, Weak):
        return ("value", item.value)
    return ("value", item if not isinstance(item, np.generic) else item.item())
