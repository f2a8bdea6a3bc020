"""TensorArrays lowered as a preallocated buffer of their known size with a mask of
the elements written (reading or stacking an unwritten one raises, as on the
NumPy backend); the element type comes from what uses the TensorArray.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import TensorArrayBuffer, _Collector, _is_static
from runtime.ir.errors import InvalidArgumentError
from runtime.ir.graph import Graph, Node

__all__ = ["TensorArrayLowering"]


class TensorArrayLowering:
    """The TensorArray ops of `Lowering` (it provides graph, jnp, lax, ranges, check and conform)."""

    def _op_ta_new(self, node: Node, values: list, state: list) -> Any:
        stack = self.stack_size(node) if node.attrs.get("dynamic") else None
        if stack is not None:
            values = [np.int64(stack)]  # a differentiated loop's stack: as long as the loop runs
        elif node.attrs.get("dynamic"):
            raise staging_error_at(
                node.origin,
                "a TensorArray with dynamic_size=True grows while the graph runs, and XLA needs its "
                "size before: create it with a size known while tracing (size=n, dynamic_size=False), "
                "or run this function on the NumPy backend (jit_compile=False).",
            )
        size = values[0] if values else 0
        if not _is_static(size):
            raise staging_error_at(
                node.origin,
                "this TensorArray's size is known only at run time, and XLA needs it before the graph "
                "runs: give it a size known while tracing (a Python int, or x.shape[0] of a fixed "
                "shape), or run this function on the NumPy backend (jit_compile=False).",
            )
        size = int(size)
        element = _element_type(self.graph, node)
        if element is None:
            return TensorArrayBuffer(None, None, size)
        dtype, shape = element
        jnp = self.jnp
        return TensorArrayBuffer(jnp.zeros((size, *shape), dtype), jnp.zeros((size,), bool), size)

    def _op_ta_unstack(self, node: Node, values: list, state: list) -> Any:
        items = self.jnp.asarray(values[0]).astype(node.attrs["dtype"])
        size = items.shape[0]
        return TensorArrayBuffer(items, np.ones((size,), bool), size)  # static: every element written

    def _op_ta_write(self, node: Node, values: list, state: list) -> Any:
        buffer, index, value = values
        if isinstance(buffer, _Collector):  # the one write of a scanned loop (see _scan)
            row = self.jnp.asarray(value).astype(node.attrs["dtype"])
            return _Collector(buffer.size, row)
        if buffer.items is None:
            raise staging_error_at(node.origin, "cannot tell this TensorArray's element shape while lowering it")
        jnp = self.jnp
        size = buffer.size
        known = self.ranges.get(node.inputs[1])
        if not (known is not None and 0 <= known[0] and known[1] < size):
            if _is_static(index):
                ok = 0 <= int(index) < size
            else:
                ok = (index >= 0) & (index < size)

            def fail(i: Any, _size: int = size) -> None:
                raise InvalidArgumentError(
                    f"TensorArray index {int(np.asarray(i))} is out of bounds for size {_size}; create it "
                    f"with dynamic_size=True to let it grow."
                )

            self.check(ok, fail, node, index)
        value = jnp.asarray(value).astype(buffer.items.dtype)
        element = tuple(buffer.items.shape[1:])
        if value.shape != element:
            if not _broadcasts(tuple(value.shape), element):
                raise self.element_shape_error(node, tuple(value.shape), element)
            value = jnp.broadcast_to(value, element)
        if size == 0:  # never written where the graph runs: the check above fails first
            return buffer
        lax = self.lax  # in bounds (checked above): an in-place update, not a scatter
        items = lax.dynamic_update_index_in_dim(buffer.items, value, index, 0)
        written = lax.dynamic_update_index_in_dim(buffer.written, jnp.ones((), bool), index, 0)
        return TensorArrayBuffer(items, written, size)

    def _op_ta_read(self, node: Node, values: list, state: list) -> Any:
        buffer, index = values
        if buffer.items is None:
            raise staging_error_at(node.origin, "this TensorArray is read but never written")
        size = buffer.size
        known = self.ranges.get(node.inputs[1])
        in_bounds = known is not None and 0 <= known[0] and known[1] < size
        written = buffer.written
        # a dense read (of an unstacked array, or a gradient's stack) finds every element written
        every = node.attrs.get("dense") or (_is_static(written) and bool(np.all(written)))
        if not (in_bounds and every):
            jnp = self.jnp
            ok = jnp.asarray(written)[jnp.clip(index, 0, max(size - 1, 0))] if not every else True
            if not in_bounds:
                ok = (index >= 0) & (index < size) & ok

            def fail(i: Any) -> None:
                raise InvalidArgumentError(f"TensorArray element {int(np.asarray(i))} was read before it was written")

            self.check(ok, fail, node, index)
        if size == 0:  # never read where the graph runs: the check above fails first
            return self.conform(self.jnp.zeros(buffer.items.shape[1:], buffer.items.dtype), node.type)
        return self.conform(buffer.items[index], node.type)

    def _op_ta_stack(self, node: Node, values: list, state: list) -> Any:
        buffer = values[0]
        if buffer.items is None:
            shape = node.attrs["element_shape"]
            if buffer.size == 0 and shape is not None and None not in shape:
                return np.zeros((0, *shape), node.attrs["dtype"])
            raise staging_error_at(node.origin, "cannot tell this TensorArray's element shape while lowering it")

        def fail(written: Any) -> None:
            missing = int(np.argmin(np.asarray(written)))
            raise InvalidArgumentError(
                f"cannot stack a TensorArray whose element {missing} was never written (write returns the "
                f"TensorArray holding the new element: keep it, as in ta = ta.write(i, value))"
            )

        written = buffer.written
        self.check(np.all(written) if _is_static(written) else self.jnp.all(written), fail, node, written)
        return buffer.items

    def _op_ta_concat(self, node: Node, values: list, state: list) -> Any:
        """All elements joined along their first axis: the buffer's first two axes merged (every
        element has the buffer's one shape here), after the NumPy backend's checks."""
        buffer = values[0]
        if buffer.items is None or buffer.size == 0:
            raise staging_error_at(
                node.origin, "XLA cannot concat a TensorArray that is never written (its element shape is "
                "unknown while lowering); run this function on the NumPy backend (jit_compile=False).",
            )
        items = self.jnp.asarray(buffer.items)
        if items.ndim < 2:
            raise staging_error_at(
                node.origin, "TensorArray.concat needs elements of rank >= 1, not scalars; use stack()",
            )

        def fail(written: Any) -> None:
            missing = int(np.argmin(np.asarray(written)))
            raise InvalidArgumentError(f"cannot concat a TensorArray whose element {missing} was never written")

        written = buffer.written
        self.check(np.all(written) if _is_static(written) else self.jnp.all(written), fail, node, written)
        joined = items.reshape((items.shape[0] * items.shape[1], *items.shape[2:]))
        return self.conform(joined.astype(node.attrs["dtype"]), node.type)

    def _op_ta_gather(self, node: Node, values: list, state: list) -> Any:
        """The elements at `indices`, stacked, as the NumPy backend reads them (a negative index
        counts from the end); an index out of range or unwritten fails where the graph runs."""
        buffer, indices = values
        if buffer.items is None:
            raise staging_error_at(node.origin, "this TensorArray is gathered from but never written")
        jnp, size = self.jnp, buffer.size
        flat = jnp.asarray(indices).reshape(-1)
        flat = jnp.where(flat < 0, flat + size, flat)
        written = jnp.asarray(buffer.written)  # a NumPy array where a scanned loop wrote every row
        inside = (flat >= 0) & (flat < size)
        ok = jnp.all(inside & written[jnp.clip(flat, 0, max(size - 1, 0))])

        def fail(chosen: Any, was_written: Any) -> None:
            for i in np.asarray(chosen).reshape(-1):
                if not (0 <= int(i) < size and bool(np.asarray(was_written)[int(i)])):
                    raise InvalidArgumentError(f"TensorArray element {int(i)} was read before it was written")

        self.check(ok, fail, node, flat, written)
        return self.conform(jnp.asarray(buffer.items)[jnp.clip(flat, 0, max(size - 1, 0))], node.type)

    def _op_ta_size(self, node: Node, values: list, state: list) -> Any:
        return np.int64(values[0].size)


def _broadcasts(shape: tuple, element: tuple) -> bool:
    """Whether a value of `shape` broadcasts to `element` (what a write may store)."""
    if len(shape) > len(element):
        return False
    return all(a in (1, b) for a, b in zip(shape[::-1], element[::-1]))


def _element_type(graph: Graph, node: Node) -> tuple[np.dtype, tuple] | None:
    """The dtype and element shape of the TensorArray whose handle is `node`, from what uses it
    (in the graph, perhaps a loop body or branch inside `graph`, that holds it)."""
    owner = _owner(graph, node)
    return None if owner is None else _find_element(owner, node, set())


def _owner(graph: Graph, node: Node) -> Graph | None:
    if any(n is node for n in graph.nodes):
        return graph
    for user in graph.nodes:
        for value in user.attrs.values():
            if isinstance(value, Graph):
                found = _owner(value, node)
                if found is not None:
                    return found
    return None


def _find_element(graph: Graph, node: Node, seen: set) -> tuple[np.dtype, tuple] | None:
    if (id(graph), id(node)) in seen:
        return None
    seen.add((id(graph), id(node)))
    for user in graph.nodes:
        if not any(i is node for i in user.inputs):
            continue
        op = user.op
        if op in ("ta_write", "ta_write_once") and user.inputs[0] is node:
            shape = user.inputs[2].type.shape
            if shape is not None and None not in shape:
                return np.dtype(user.attrs["dtype"]), tuple(shape)
            found = _find_element(graph, user, seen)
            if found is not None:
                return found
        elif op in ("ta_scatter", "ta_scatter_once") and user.inputs[0] is node:
            shape = user.inputs[2].type.shape
            if shape is not None and len(shape) >= 1 and None not in shape[1:]:
                return np.dtype(user.attrs["dtype"]), tuple(shape[1:])
            found = _find_element(graph, user, seen)
            if found is not None:
                return found
        elif op == "ta_stack":
            shape = user.attrs["element_shape"]
            if shape is not None and None not in shape:
                return np.dtype(user.attrs["dtype"]), tuple(shape)
        elif op == "ta_read":
            if user.type.is_fully_defined:
                return user.type.dtype, tuple(user.type.shape)
        elif op == "while":
            body, cond = user.attrs["body"], user.attrs["cond"]
            for k, value in enumerate(user.inputs[:len(body.inputs)]):
                if value is node:
                    for sub, inp in ((body, body.inputs[k]), (cond, cond.inputs[k])):
                        found = _find_element(sub, inp, seen)
                        if found is not None:
                            return found
                    for out in graph.nodes:
                        if out.op == "getitem" and out.inputs[0] is user and out.attrs["index"] == k:
                            found = _find_element(graph, out, seen)
                            if found is not None:
                                return found
    for user in graph.nodes:
        for value in user.attrs.values():
            if not isinstance(value, Graph):
                continue
            for capture in value.nodes:
                if capture.op == "capture" and capture.attrs["outer"] is node:
                    found = _find_element(value, capture, seen)
                    if found is not None:
                        return found
        if user.op == "cond":
            for branch in (user.attrs["true"], user.attrs["false"]):
                for k, out in enumerate(branch.outputs):
                    if out is node or (out.op == "capture" and out.attrs["outer"] is node):
                        for reader in graph.nodes:
                            if reader.op == "getitem" and reader.inputs[0] is user and reader.attrs["index"] == k:
                                found = _find_element(graph, reader, seen)
                                if found is not None:
                                    return found
    return None
