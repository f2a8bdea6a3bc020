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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.backends.jax.ops import COMMON_DTYPE_EXEMPT, DATA_DEPENDENT, counterpart
from runtime.ir.errors import AutographError, InvalidArgumentError, StagingError
from runtime.ir.graph import Graph, Node
from runtime.ir.origin import Origin
from runtime.ir.types import TensorType, dtype_label
from runtime.ops.calls import Slot, Weak, resolve_call
from runtime.ops.registry import get_op

__all__ = ["Lowering", "VariableSlot", "variables_of", "staging_error_at", "CallbackFailure", "TensorArrayBuffer"]

_STATIC = (np.ndarray, np.generic, int, float, bool, complex)
_NOT_FOLDED = object()


class CallbackFailure:
    """Where a host callback leaves the error it raised, for the caller to raise again."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []
        self.used = False  # whether the lowered program calls back at all (then calls wait for it)


def staging_error_at(origin: Origin | None, message: str) -> StagingError:
    """A StagingError that starts with the user's file:line and shows the line."""
    if origin is None:
        return StagingError(message)
    excerpt = f"\n{origin.excerpt()}" if origin.text else ""
    return StagingError(f"{origin}: {message}{excerpt}")


class VariableSlot:
    """One Variable the graph reads or writes: its place in the threaded state."""

    __slots__ = ("ref", "name", "origin", "type", "assigned", "initialized_here")

    def __init__(self, ref: Any, name: str, origin: Origin | None) -> None:
        self.ref = ref
        self.name = name
        self.origin = origin
        self.type: TensorType | None = None
        self.assigned = False
        self.initialized_here = False


def variables_of(graph: Graph) -> list[VariableSlot]:
    """Every Variable read, assigned or initialized anywhere in `graph` (subgraphs included)."""
    found: dict[int, VariableSlot] = {}

    def walk(g: Graph) -> None:
        for node in g.nodes:
            if node.op in ("read_variable", "assign_variable", "initialize_variable"):
                variable = node.attrs["ref"]()
                key = id(variable) if variable is not None else id(node.attrs["ref"])
                slot = found.get(key)
                if slot is None:
                    slot = found[key] = VariableSlot(node.attrs["ref"], node.attrs["name"], node.attrs["origin"])
                if node.op == "read_variable":
                    slot.type = node.type
                elif node.op == "assign_variable":
                    slot.assigned = True
                else:
                    slot.initialized_here = True
                    slot.type = TensorType(variable.dtype, variable.shape) if variable is not None else node.inputs[0].type
                if slot.type is None and variable is not None:
                    slot.type = TensorType(variable.dtype, variable.shape)
            for value in node.attrs.values():
                if isinstance(value, Graph):
                    walk(value)

    walk(graph)
    return list(found.values())


class TensorArrayBuffer:
    """A TensorArray while lowering: `items[capacity, *element]` and which of them are written.

    A pytree (registered by `Lowering`): the arrays are its leaves, so it
    can be a loop variable or a branch result; its size is static.
    """

    __slots__ = ("items", "written", "size")

    def __init__(self, items: Any, written: Any, size: int) -> None:
        self.items = items
        self.written = written
        self.size = size


_REGISTERED = [False]


def _register_pytree(jax: Any) -> None:
    if not _REGISTERED[0]:
        jax.tree_util.register_pytree_node(
            TensorArrayBuffer,
            lambda b: ((b.items, b.written), b.size),
            lambda size, children: TensorArrayBuffer(children[0], children[1], size),
        )
        _REGISTERED[0] = True


def _is_static(value: Any) -> bool:
    return isinstance(value, _STATIC)


class Lowering:
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

    @staticmethod
    def _data_dependent(node: Node, values: list) -> bool:
        """Whether this call's output shape depends on run-time values (np.repeat: its repeats)."""
        if node.op == "repeat":
            args, kwargs = resolve_call(values, node.attrs)
            repeats = args[1] if len(args) > 1 else kwargs.get("repeats")
            return not _is_static(repeats)
        return not all(_is_static(v) for v in values)

    def _fold(self, node: Node, values: list) -> Any:
        """The op computed now by NumPy, when every input is known while lowering (else _NOT_FOLDED).

        An op that raises (an index out of bounds) is left to run, and raise, where the graph runs it.
        """
        spec = get_op(node.op)
        if spec.effectful or spec.stateful or not all(_is_static(v) for v in values):
            return _NOT_FOLDED
        try:
            with np.errstate(all="ignore"):
                return self.conform(spec.impl(*values, **node.attrs), node.type)
        except Exception:  # noqa: BLE001 - whatever NumPy raises, the graph raises when it runs
            return _NOT_FOLDED

    # -- ops ---------------------------------------------------------------
    def _call(self, node: Node, values: list) -> Any:
        spec = get_op(node.op)
        folded = self._fold(node, values)
        if folded is not _NOT_FOLDED:
            return folded
        fn = self._functions.get(node.op)
        if fn is None:
            fn = counterpart(spec, self.jnp)
            if fn is None:
                raise staging_error_at(
                    node.origin,
                    f"{spec.path or node.op} has no counterpart in jax.numpy, so XLA cannot compile it; "
                    f"rewrite it with other NumPy functions, or run this function on the NumPy backend "
                    f"(jit_compile=False).",
                )
            self._functions[node.op] = fn
        args, kwargs = resolve_call(values, node.attrs)
        ufunc = spec.numpy
        if isinstance(ufunc, np.ufunc) and ufunc.nin == 2 and len(args) == 2 and node.op not in COMMON_DTYPE_EXEMPT:
            args = self._common_dtype(args)
            if node.op == "power":
                self._check_power(node, *args)
        try:
            result = fn(*args, **kwargs)
        except TypeError as error:
            if "requires ndarray or scalar arguments" not in str(error):
                raise
            # NumPy reads a tuple of numbers as an array (np.isin(x, [1, 2])); jax.numpy wants arrays
            result = fn(*[np.asarray(a) if isinstance(a, tuple) else a for a in args], **kwargs)
        return self.conform(result, node.type)

    def _check_power(self, node: Node, base: Any, exponent: Any) -> None:
        """An integer to a negative integer power raises, as NumPy does (XLA gives 0 or 1)."""
        if _dtype(exponent).kind != "i" or _dtype(base).kind not in "iu":
            return
        ok = np.all(np.asarray(exponent) >= 0) if _is_static(exponent) else self.jnp.all(exponent >= 0)

        def fail(_: Any) -> None:
            raise ValueError("Integers to negative integer powers are not allowed.")

        self.check(ok, fail, node, exponent)

    def _common_dtype(self, args: Sequence[Any]) -> tuple:
        """The operands in NumPy's common dtype (Python scalars stay weak, as NEP 50 says)."""
        tensors = [a for a in args if hasattr(a, "dtype")]
        if not tensors:
            return tuple(args)
        common = np.result_type(*[a.dtype if hasattr(a, "dtype") else a for a in args])
        return tuple(self.jnp.asarray(a, common) if hasattr(a, "dtype") and a.dtype != common else a for a in args)

    def conform(self, value: Any, type_: Any) -> Any:
        """`value` in the dtype the graph gives it (a static value stays a NumPy value)."""
        if not isinstance(type_, TensorType) or type_.dtype == object or value is None:
            return value
        if isinstance(value, TensorArrayBuffer):
            return value
        if _is_static(value):
            array = np.asarray(value)
            return array if array.dtype == type_.dtype else array.astype(type_.dtype)
        if isinstance(value, (tuple, list)):
            value = self.jnp.asarray(value)
        if value.dtype != type_.dtype:
            value = self.lax.convert_element_type(value, type_.dtype)
        return value

    def _op_index(self, node: Node, values: list, state: list) -> Any:
        folded = self._fold(node, values)
        if folded is not _NOT_FOLDED:
            return folded
        base, key = resolve_call(values, node.attrs)[0]
        items, empty = self._check_index(node, base, key if isinstance(key, tuple) else (key,))
        base = self.jnp.asarray(base)
        if empty:
            # an index into an empty axis always fails its check, which raises where the graph
            # runs it; a zero-filled axis of length 1 gives the result its shape until then
            shape = list(base.shape)
            for axis in empty:
                shape[axis] = 1
            base = self.jnp.zeros(shape, base.dtype)
        return self.conform(base[items if isinstance(key, tuple) else items[0]], node.type)

    def _check_index(self, node: Node, base: Any, items: tuple) -> tuple[tuple, list[int]]:
        """Integer indices in bounds, checked where the graph runs (XLA would clamp them); a
        boolean mask refused. Returns the key, out-of-bounds constants replaced by 0 once
        their failing check is in place, and the empty axes indexed."""
        rank = len(base.shape)
        consumed = sum(
            (len(i.shape) if hasattr(i, "dtype") and i.dtype == np.bool_ else 1)
            for i in items if i is not None and i is not Ellipsis
        )
        axis = 0
        template = node.attrs.get("args", (Slot(0), Slot(1)))[1]
        slots = template if isinstance(template, tuple) else (template,)
        items = list(items)
        empty: list[int] = []
        for position, item in enumerate(items):
            if item is None:
                continue
            if item is Ellipsis:
                axis += rank - consumed
                continue
            if isinstance(item, slice):
                if not all(p is None or isinstance(p, (int, np.integer)) for p in (item.start, item.stop, item.step)):
                    raise staging_error_at(
                        node.origin,
                        "a slice whose bounds are tensors has a length known only at run time, which XLA "
                        "cannot compile; slice with Python ints, or take a fixed number of elements with "
                        "np.take(x, start + np.arange(n), axis=...); or run on the NumPy backend "
                        "(jit_compile=False).",
                    )
                axis += 1
                continue
            dtype = _dtype(item)
            if dtype == np.bool_ and np.ndim(item) > 0:
                raise staging_error_at(
                    node.origin,
                    "indexing with a boolean mask gives a result whose shape depends on the data, which "
                    "XLA cannot compile; use np.where(mask, x, fill) to keep the shape, or run on the "
                    "NumPy backend (jit_compile=False).",
                )
            size = base.shape[axis]
            slot = slots[position] if position < len(slots) else None
            known = self.ranges.get(node.inputs[slot.index]) if isinstance(slot, Slot) else None
            if known is not None and -size <= known[0] and known[1] < size:
                if size == 0:  # a loop that never runs: its body still needs shapes
                    empty.append(axis)
                axis += 1
                continue
            if _is_static(item):
                index = np.asarray(item)
                ok = bool(np.all((index >= -size) & (index < size)))
            else:
                ok = self.jnp.all((item >= -size) & (item < size))

            def fail(index: Any, _axis: int = axis, _size: int = size) -> None:
                index = np.asarray(index)
                bad = index[(index < -_size) | (index >= _size)] if index.ndim else index
                first = int(np.asarray(bad).ravel()[0])
                raise IndexError(f"index {first} is out of bounds for axis {_axis} with size {_size}")

            self.check(ok, fail, node, item)
            if size == 0:
                empty.append(axis)
            if _is_static(item) and not ok:
                items[position] = np.zeros_like(np.asarray(item))
            axis += 1
        return tuple(items), empty

    def _op_print(self, node: Node, values: list, state: list) -> None:
        impl, attrs = get_op("print").impl, node.attrs

        def show(*arrays: Any) -> None:
            impl(*[_host(a) for a in arrays], **attrs)

        self.jax.debug.callback(show, *values, ordered=True)

    def _op_py_function(self, node: Node, values: list, state: list) -> Any:
        attrs = node.attrs
        if attrs["Tout"]:
            raise staging_error_at(
                node.origin,
                "ag.py_function's results have a shape known only when the Python function runs, and XLA "
                "needs every shape before the graph runs; compute the results with staged NumPy "
                "operations, or run this function on the NumPy backend (jit_compile=False).",
            )
        impl = get_op("py_function").impl
        failure = self.failure
        failure.used = True

        def call(*arrays: Any) -> None:
            try:
                impl(*[_host(a) for a in arrays], **attrs)
            except BaseException as error:
                failure.errors.append(error)
                error._autograph_raised = True
                raise

        from jax.experimental import io_callback

        io_callback(call, None, *values, ordered=True)
        return None

    def _op_assert(self, node: Node, values: list, state: list) -> None:
        impl, attrs = get_op("assert").impl, node.attrs
        value = values[0]
        if np.size(value) != 1 if _is_static(value) else value.size != 1:
            impl(np.ones(np.shape(value), bool), **attrs)  # NumPy's own error: the truth value is ambiguous
        ok = value if _is_static(value) else self.jnp.all(value)

        def fail(*arrays: Any) -> None:
            impl(*[_host(a) for a in arrays], **attrs)

        self.check(ok, fail, node, *values, ordered=True)

    def check(self, ok: Any, fail: Callable[..., None], node: Node, *data: Any, ordered: bool = False) -> None:
        """Run `fail(*data)` on the host, to raise, where `ok` is false at run time."""
        if _is_static(ok) and bool(np.all(ok)):
            return
        from jax.experimental import io_callback

        failure, origin = self.failure, node.origin
        failure.used = True

        def raise_it(*arrays: Any) -> None:
            try:
                fail(*arrays)
            except BaseException as error:
                if origin is not None and not isinstance(error, AutographError):
                    error.add_note(f"while running the graph, the op created at {origin} raised:\n{origin.excerpt()}")
                failure.errors.append(error)
                error._autograph_raised = True  # raised again by the executable: JAX need not log it
                raise
            raise AssertionError("a failing check did not raise")

        def failing(*arrays: Any) -> None:
            io_callback(raise_it, None, *arrays, ordered=ordered)

        if _is_static(ok):
            failing(*data)
            return
        self.lax.cond(self.jnp.asarray(ok, bool), lambda *a: None, failing, *data)

    # -- Variables ------------------------------------------------------------
    def _slot(self, node: Node) -> int:
        variable = node.attrs["ref"]()
        return self.var_index[id(variable) if variable is not None else id(node.attrs["ref"])]

    def _op_read_variable(self, node: Node, values: list, state: list) -> Any:
        index = self._slot(node)
        if not self.initialized[index]:
            slot = self.variables[index]
            raise staging_error_at(
                node.origin,
                f"the Variable '{slot.name}' is read before the graph gives it its first value; "
                f"initialize it before reading it.",
            )
        return state[index]

    def _op_assign_variable(self, node: Node, values: list, state: list) -> None:
        index = self._slot(node)
        slot = self.variables[index]
        value = values[0]
        mode = node.attrs["mode"]
        if mode in ("add", "sub"):
            value = state[index] + value if mode == "add" else state[index] - value
        shape = tuple(np.shape(value)) if _is_static(value) else tuple(value.shape)
        if slot.type is not None and slot.type.shape is not None and shape != tuple(slot.type.shape):
            raise InvalidArgumentError(
                f"cannot assign a value of shape {shape} to the Variable '{slot.name}' of "
                f"shape {tuple(slot.type.shape)}; a Variable keeps its shape."
            )
        state[index] = self.jnp.asarray(value).astype(slot.type.dtype)

    def _op_initialize_variable(self, node: Node, values: list, state: list) -> None:
        index = self._slot(node)
        if not self.initialized[index]:
            state[index] = self.jnp.asarray(values[0]).astype(self.variables[index].type.dtype)
            self.initialized[index] = True

    # -- TensorArrays ---------------------------------------------------------
    def _op_ta_new(self, node: Node, values: list, state: list) -> Any:
        if node.attrs.get("dynamic"):
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
        return TensorArrayBuffer(items, self.jnp.ones((size,), bool), size)

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
        if value.shape != buffer.items.shape[1:]:
            value = jnp.broadcast_to(value, buffer.items.shape[1:])
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
        if not (known is not None and 0 <= known[0] and known[1] < size):
            ok = (index >= 0) & (index < size) & buffer.written[self.jnp.clip(index, 0, max(size - 1, 0))]

            def fail(i: Any) -> None:
                raise InvalidArgumentError(f"TensorArray element {int(np.asarray(i))} was read before it was written")

            self.check(ok, fail, node, index)
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

    def _op_ta_size(self, node: Node, values: list, state: list) -> Any:
        return np.int64(values[0].size)

    # -- control flow -----------------------------------------------------------
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
                    raise staging_error_at(
                        node.origin,
                        f"the loop variable '{inp.name}' changes shape in this loop (from {_shape(before)} "
                        f"to {_shape(value)}), and XLA needs one shape for every iteration: give it its "
                        f"final shape before the loop (preallocate and write into it, or use a TensorArray "
                        f"of known size), or run this function on the NumPy backend (jit_compile=False).",
                    )
                result.append(value)
            return tuple(result), tuple(new_state)

        counted = self._counted(node, env) if limit is None else None
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

        def test(carry: tuple) -> Any:
            values, carried, *iterations = carry
            outputs, _ = self.run_graph(cond, list(values), env, list(carried))
            keep = jnp.asarray(outputs[0]).reshape(()).astype(bool)
            return keep if limit is None else keep & (iterations[0] < limit)

        def loop(carry: tuple) -> tuple:
            values, carried, *iterations = carry
            values, carried = step(values, carried)
            return (values, carried, *(i + 1 for i in iterations))

        counter = () if limit is None else (jnp.int64(0),)  # maximum_iterations counts iterations
        values, new_state, *_ = lax.while_loop(test, loop, (tuple(init), tuple(state), *counter))
        state[:] = list(new_state)
        return tuple(values)

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


class _Collector:
    """A TensorArray inside a scanned loop: it only takes the row this iteration writes."""

    __slots__ = ("size", "value")

    def __init__(self, size: int, value: Any = None) -> None:
        self.size = size
        self.value = value


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


def _shape(value: Any) -> Any:
    if isinstance(value, _Collector):
        return ("row", value.size)
    if isinstance(value, TensorArrayBuffer):
        return (value.size, None if value.items is None else tuple(value.items.shape[1:]))
    return tuple(np.shape(value)) if _is_static(value) else tuple(value.shape)


def _check_kind(node: Node) -> None:
    """Numbers and bools only: XLA has no text, bytes or datetime arrays."""
    for type_ in node.type if isinstance(node.type, tuple) else (node.type,):
        if type_.dtype.kind not in "biufcO":
            raise staging_error_at(
                node.origin,
                f"{'the input ' + repr(node.name) if node.op == 'input' else 'this value'} is a "
                f"{dtype_label(type_.dtype)} tensor, and XLA computes on numbers and bools only; keep text and "
                f"dates out of the function, or run it on the NumPy backend (jit_compile=False).",
            )


def _dtype(value: Any) -> np.dtype:
    dtype = getattr(value, "dtype", None)
    return np.dtype(dtype) if dtype is not None else np.asarray(value).dtype


def _host(value: Any) -> Any:
    """A callback's argument as the NumPy backend would hold it (0-d as a NumPy scalar)."""
    array = np.asarray(value)
    return array[()] if array.ndim == 0 else array


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _element_type(graph: Graph, node: Node) -> tuple[np.dtype, tuple] | None:
    """The dtype and element shape of the TensorArray whose handle is `node`, from what uses it."""
    return _find_element(graph, node, set())


def _find_element(graph: Graph, node: Node, seen: set) -> tuple[np.dtype, tuple] | None:
    if (id(graph), id(node)) in seen:
        return None
    seen.add((id(graph), id(node)))
    for user in graph.nodes:
        if not any(i is node for i in user.inputs):
            continue
        op = user.op
        if op == "ta_write" and user.inputs[0] is node:
            shape = user.inputs[2].type.shape
            if shape is not None and None not in shape:
                return np.dtype(user.attrs["dtype"]), tuple(shape)
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

