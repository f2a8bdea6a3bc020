"""TensorArray gradients and the stacks of a differentiated while loop, under XLA.

On the NumPy backend a TensorArray's gradient is a Python list of element
gradients (None for zero) that grows as gradients arrive. XLA needs every
shape before the graph runs, so here it is dense: one array of the
TensorArray's size and element shape, zero where no gradient arrived, sized
by the TensorArray its `grad_list_new` names. Adding zero changes no value,
so each op computes what its list counterpart computes.

A differentiated while loop keeps each iteration's state on stacks
(`runtime.passes.gradient.rules_control`): a counted loop's or one bounded
by `ag.set_loop_options(maximum_iterations=...)` are preallocated buffers;
one without a bound would grow, which XLA cannot compile: that is a
StagingError naming the loop's line and the fix. The backward loop counts
down from the taped loop's last iteration, so its counter's range is known
and its reads of the stacks (and the body's `x[j]`) need no run-time checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import TensorArrayBuffer, _dtype, _is_static, _shape
from runtime.ir.errors import InvalidArgumentError, StagingError
from runtime.ir.graph import Graph, Node
from runtime.ops.calls import resolve_call

__all__ = ["GradientListLowering", "backward_of", "counters_from_zero"]


class GradientListLowering:
    """Gradient lists, fresh zeros and taped-loop writes of `Lowering` (it provides graph, jnp,
    lax, ranges, check, conform and _op_ta_write)."""

    # -- gradient lists: dense arrays [size, *element] ------------------------------
    def _op_grad_list_new(self, node: Node, values: list, state: list) -> Any:
        handle = values[0] if values else None
        if isinstance(handle, TensorArrayBuffer) and handle.items is not None:
            items = handle.items
            dtype = _dtype(items) if _dtype(items).kind in "fc" else np.dtype(np.float64)
            return self.jnp.zeros((handle.size, *_shape(items)[1:]), dtype)
        raise staging_error_at(
            node.origin,
            "XLA cannot tell the size or element shape of the TensorArray this gradient flows through "
            "(its gradient is preallocated); write every element of a TensorArray of known size before "
            "differentiating through it, or run this function on the NumPy backend (jit_compile=False).",
        )

    def _op_grad_list_add(self, node: Node, values: list, state: list) -> Any:
        a, b = (self.jnp.asarray(v) for v in values)
        if a.shape[0] != b.shape[0]:  # the NumPy backend's lists: the shorter one ends in zeros
            size = max(a.shape[0], b.shape[0])
            a, b = (self._padded(v, size) for v in (a, b))
        return a + b.astype(a.dtype)

    def _padded(self, rows: Any, size: int) -> Any:
        jnp = self.jnp
        if rows.shape[0] >= size:
            return rows[:size]
        return jnp.concatenate([rows, jnp.zeros((size - rows.shape[0], *rows.shape[1:]), rows.dtype)])

    def _op_grad_list_read(self, node: Node, values: list, state: list) -> Any:
        rows, index, like = values
        rows = self.jnp.asarray(rows)
        row = self.lax.dynamic_index_in_dim(rows, index, 0, keepdims=False)  # written, so in bounds
        return self.conform(self._sum_to_like(row, like), node.type)

    def _op_grad_list_drop(self, node: Node, values: list, state: list) -> Any:
        rows, index = values
        rows = self.jnp.asarray(rows)
        return self.lax.dynamic_update_index_in_dim(rows, self.jnp.zeros(rows.shape[1:], rows.dtype), index, 0)

    def _op_grad_list_put(self, node: Node, values: list, state: list) -> Any:
        rows, index, value = values
        rows = self.jnp.asarray(rows)
        lax = self.lax
        current = lax.dynamic_index_in_dim(rows, index, 0, keepdims=False)  # read, so in bounds
        added = current + self.jnp.broadcast_to(self.jnp.asarray(value).astype(rows.dtype), current.shape)
        return lax.dynamic_update_index_in_dim(rows, added, index, 0)

    def _op_grad_list_from(self, node: Node, values: list, state: list) -> Any:
        return self.jnp.asarray(values[0])

    def _op_grad_list_stack(self, node: Node, values: list, state: list) -> Any:
        rows, like = values
        rows = self._padded(self.jnp.asarray(rows), _shape(like)[0])
        return self.conform(rows.astype(_dtype(like)).reshape(_shape(like)), node.type)

    def _op_fresh_zeros(self, node: Node, values: list, state: list) -> Any:
        like = values[0]
        return self.jnp.zeros(_shape(like), _dtype(like))

    # -- the taped loop's writes ------------------------------------------------------
    def _op_ta_write_once(self, node: Node, values: list, state: list) -> Any:
        """A TensorArray write in a loop being differentiated: each element may be written once."""
        buffer, index = values[0], values[1]
        if isinstance(buffer, TensorArrayBuffer) and buffer.items is not None:
            written = buffer.written
            size = buffer.size
            if _is_static(index) and _is_static(written):
                fresh = not (0 <= int(index) < size and bool(np.asarray(written)[int(index)]))
            else:
                fresh = ~self.jnp.asarray(written)[self.jnp.clip(index, 0, max(size - 1, 0))]

            def fail(i: Any) -> None:
                raise InvalidArgumentError(
                    f"TensorArray element {int(np.asarray(i))} is written twice in a loop that is "
                    f"differentiated; its gradient needs each element written once (as in TensorFlow). "
                    f"Write each iteration to its own index."
                )

            self.check(fresh, fail, node, index)
        return self._op_ta_write(node, values, state)

    def stack_size(self, node: Node) -> int | None:
        """The size of a dynamic `ta_new` that is a stack of a differentiated loop: the most
        iterations the loop runs (None: not a stack). A loop without a bound is refused."""
        taped = _taped_loop_of(self.graph, node)
        if taped is None:
            return None
        bound = self._loop_bound(taped)
        if bound is None:
            raise staging_error_at(
                taped.attrs["taped_from"].origin,
                "this loop is differentiated, and its gradient keeps every iteration's values; XLA needs "
                "their number before the graph runs, and this loop's trip count is known only at run time. "
                "Bound it with ag.set_loop_options(maximum_iterations=n) as the first statement of the loop "
                "body (the gradient then preallocates n entries), or run this function on the NumPy backend "
                "(jit_compile=False).",
            )
        self.taped_bounds[taped] = bound
        return bound

    def element_shape_error(self, write: Node, shape: tuple, element: tuple) -> StagingError:
        """A write whose value does not fit the TensorArray's elements; on a taped loop's stack,
        a loop variable that changes shape (the error names the loop, as the forward's would)."""
        taped = self.stack_writes.get(write.inputs[0])
        if taped is not None:
            name = write.inputs[2].name
            return staging_error_at(
                taped.attrs["taped_from"].origin,
                f"the loop variable '{name}' changes shape in this loop (from {element} to {shape}), and "
                f"XLA needs one shape for every iteration: give it its final shape before the loop, or "
                f"run this function on the NumPy backend (jit_compile=False).",
            )
        return staging_error_at(
            write.origin,
            f"this TensorArray's elements have shape {element}, and this write's value has shape {shape}; "
            f"XLA stores every element in one preallocated array, so they need one shape: write values "
            f"of one shape, or run this function on the NumPy backend (jit_compile=False).",
        )

    def _loop_bound(self, loop: Node) -> int | None:
        """The most iterations `loop` runs, when its test is `i < n` (perhaps and-ed with more) for a
        counter `i` that starts at a constant and grows by 1 in every iteration, and `n` has a known
        bound (a constant, or a counter of an enclosing loop whose range is known, plus constants)."""
        cond, body = loop.attrs["cond"], loop.attrs["body"]
        for test in _conjuncts(cond.outputs[0]):
            if test.op != "less":
                continue
            args, kwargs = resolve_call(test.inputs, test.attrs)
            if kwargs or len(args) != 2 or not isinstance(args[0], Node) or args[0] not in cond.inputs:
                continue
            k = cond.inputs.index(args[0])
            start = _int_value(loop.inputs[k])
            if start is None or not _call_is(body.outputs[k], "add", body.inputs[k], 1):
                continue
            bound = self._upper_bound(args[1])
            if bound is not None:
                return max(bound - start, 0)
        return None

    def _upper_bound(self, value: Any) -> int | None:
        if isinstance(value, (int, np.integer)):
            return int(value)
        if not isinstance(value, Node):
            return None
        known = self.ranges.get(value)
        if known is not None:
            return known[1]
        if value.op == "constant":
            return _int_value(value)
        if value.op == "capture":
            return self._upper_bound(value.attrs["outer"])
        if value.op == "add":
            args, kwargs = resolve_call(value.inputs, value.attrs)
            bounds = [self._upper_bound(a) for a in args]
            if not kwargs and len(bounds) == 2 and None not in bounds:
                return bounds[0] + bounds[1]
        return None

    def backward_counter(self, loop: Node, env: dict) -> tuple[int, int] | None:
        """(index, bound) of the counter of a backward loop that counts down from the last
        iteration of a taped loop run at most `bound` times: it takes the values 0 .. bound-1."""
        taped = backward_of(loop)
        bound = None if taped is None else self.taped_bounds.get(taped)
        return None if bound is None else (0, bound)


def backward_of(loop: Node) -> Node | None:
    """The taped loop whose iterations the backward loop `loop` counts down (None: not one)."""
    cond, body = loop.attrs["cond"], loop.attrs["body"]
    if not cond.inputs or not body.inputs:
        return None
    test, step, start = cond.outputs[0], body.outputs[0], loop.inputs[0]
    if not (_call_is(test, "greater_equal", cond.inputs[0], 0) and _call_is(step, "subtract", body.inputs[0], 1)):
        return None
    if start.op != "subtract" or not _call_is(start, "subtract", start.inputs[0], 1):
        return None
    count = start.inputs[0]
    taped = count.inputs[0] if count.op == "getitem" and count.inputs else None
    if taped is None or taped.op != "while" or taped.attrs.get("taped_from") is None:
        return None
    if count.attrs["index"] not in counters_from_zero(taped):  # not the number of iterations
        return None
    return taped


def counters_from_zero(loop: Node) -> list[int]:
    """The loop variables that start at 0 and grow by 1 in every iteration: at the start of
    iteration k they are k, and after the loop the number of iterations run."""
    body = loop.attrs["body"]
    return [k for k, start in enumerate(loop.inputs[: len(body.inputs)])
            if _int_value(start) == 0 and _call_is(body.outputs[k], "add", body.inputs[k], 1)]


def _call_is(node: Node, op: str, first: Any, second: int) -> bool:
    """Whether `node` is `op(first, second)` (a Python or NumPy int `second`)."""
    if node.op != op:
        return False
    args, kwargs = resolve_call(node.inputs, node.attrs)
    if kwargs or len(args) != 2 or args[0] is not first:
        return False
    other = args[1]
    if isinstance(other, Node):
        other = other.attrs.get("value") if other.op == "constant" else None
    return other is not None and np.ndim(other) == 0 and np.asarray(other).dtype.kind in "iu" and int(other) == second


def _conjuncts(test: Node) -> list[Node]:
    """The tests `test` and-s together (itself when it is no logical_and)."""
    if test.op != "logical_and":
        return [test]
    args, kwargs = resolve_call(test.inputs, test.attrs)
    if kwargs:
        return [test]
    return [c for a in args if isinstance(a, Node) for c in _conjuncts(a)]


def _int_value(node: Node) -> int | None:
    if node.op != "constant":
        return None
    value = np.asarray(node.attrs["value"])
    return int(value) if value.ndim == 0 and value.dtype.kind in "iu" else None


def _taped_loop_of(graph: Graph, stack: Node) -> Node | None:
    """The taped while (attrs `taped_from`: the loop it repeats) that `stack` starts a stack of."""
    for node in graph.nodes:
        if node.op == "while" and node.attrs.get("taped_from") is not None:
            if any(i is stack for i in node.inputs[: len(node.attrs["body"].inputs)]):
                return node
        for value in node.attrs.values():
            if isinstance(value, Graph):
                found = _taped_loop_of(value, stack)
                if found is not None:
                    return found
    return None
