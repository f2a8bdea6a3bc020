"""The functional forms of TensorFlow: scan, map_fn and switch_case.

Inside a trace, `scan` and `map_fn` are one staged while loop over the
elements' first dimension (never unrolled): `fn` is traced once, as the
loop body, and each step's result is written into a TensorArray that is
stacked after the loop. `switch_case` with a staged index is a chain of
conds (one per branch but the last), each branch traced once. Outside a
trace they run in Python on NumPy values, with the same results.

    cumulative = ag.scan(lambda acc, x: acc + x, np.arange(5.0))   # [0, 1, 3, 6, 10]
    squares = ag.map_fn(lambda x: x * x, np.arange(4))              # [0, 1, 4, 9]
    y = ag.switch_case(k, [lambda: x, lambda: -x], default=lambda: 0 * x)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.graph import Graph
from runtime.ir.structure import flatten, unflatten
from runtime.ir.types import TensorType
from runtime.tracing.constant import constant
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.leaves import as_tensor, where
from runtime.tracing.tensor import Tensor
from runtime.tracing.tensor_array import TensorArray
from runtime.tracing.trace_context import building, current_graph

__all__ = ["scan", "map_fn", "switch_case"]


# -- scan and map_fn -----------------------------------------------------------------
def map_fn(fn: Callable[[Any], Any], elems: Any) -> Any:
    """`fn` applied to each slice `elems[i]` along the first dimension, the results stacked.

    `elems` may be a nested structure of arrays with the same first dimension;
    `fn` then gets one slice of each, in that structure, and its results may be
    a structure too (each leaf stacked on its own).
    """
    leaves, tree = flatten(elems)
    if current_graph() is None:
        rows = _python_rows(leaves, "ag.map_fn")
        return _stack_python([fn(unflatten(tree, [leaf[i] for leaf in leaves])) for i in range(rows)])
    leaves = [_staged(leaf) for leaf in leaves]
    count = _rows(leaves, "ag.map_fn")

    dtypes, out_tree = _probe(fn, tree, leaves)

    def step(i: Any, carry: tuple) -> tuple[tuple, Any]:
        return carry, fn(unflatten(tree, [leaf[i] for leaf in leaves]))

    _, outputs = _loop(step, (), count, 0, None, dtypes, out_tree)
    return outputs


def scan(fn: Callable[[Any, Any], Any], elems: Any, initializer: Any = None) -> Any:
    """The running values of `acc = fn(acc, x)` over the slices `x` of `elems`, stacked.

    As `tf.scan`: without an `initializer` the first slice starts the
    accumulator and is the first row of the result; `acc` (and the result) has
    the structure of `initializer` (else of `elems`).
    """
    leaves, tree = flatten(elems)
    if current_graph() is None:
        rows = _python_rows(leaves, "ag.scan")
        start = 0
        if initializer is None:
            if rows == 0:
                raise ValueError("ag.scan over zero elements needs an initializer")
            acc, start = unflatten(tree, [leaf[0] for leaf in leaves]), 1
        else:
            acc = initializer
        results = [acc] if start else []
        for i in range(start, rows):
            acc = fn(acc, unflatten(tree, [leaf[i] for leaf in leaves]))
            results.append(acc)
        return _stack_python(results)
    leaves = [_staged(leaf) for leaf in leaves]
    count = _rows(leaves, "ag.scan")
    start, first = 0, None
    if initializer is None:
        if isinstance(count, int) and count == 0:
            raise StagingError(f"{where()}ag.scan over zero elements needs an initializer")
        initializer = unflatten(tree, [leaf[0] for leaf in leaves])
        start, first = 1, initializer
    init_leaves, init_tree = flatten(initializer)

    def step(i: Any, carry: tuple) -> tuple[tuple, Any]:
        acc = fn(unflatten(init_tree, list(carry)), unflatten(tree, [leaf[i] for leaf in leaves]))
        acc_leaves, acc_tree = flatten(acc)
        if acc_tree != init_tree:
            raise StagingError(
                f"{where()}ag.scan: fn returns {acc_tree} but the accumulator is {init_tree}; return a "
                f"value with the accumulator's structure."
            )
        for before, after in zip(dtypes, acc_leaves):
            if _dtype(after) != before:
                raise StagingError(
                    f"{where()}ag.scan: fn returns a {_dtype(after).name} accumulator but it starts as "
                    f"{before.name}; a scan keeps one dtype: start it as {_dtype(after).name} (for example "
                    f"initializer=np.{_dtype(after).name}(0)) or cast what fn returns with .astype(np.{before.name})"
                )
        return tuple(acc_leaves), acc

    dtypes = [_dtype(leaf) for leaf in init_leaves]
    _, outputs = _loop(step, tuple(init_leaves), count, start, first, dtypes, init_tree)
    return outputs


def _python_rows(leaves: list, what: str) -> int:
    if not leaves:
        raise ValueError(f"{what}: elems is empty; pass at least one array")
    sizes = {len(leaf) for leaf in leaves}
    if len(sizes) != 1:
        raise ValueError(f"{what}: the arrays in elems have different first dimensions {sorted(sizes)}")
    return sizes.pop()


def _stack_python(results: list) -> Any:
    if not results:
        raise ValueError("ag.map_fn over zero elements cannot tell the result's shape outside a Function")
    flat = [flatten(r)[0] for r in results]
    tree = flatten(results[0])[1]
    return unflatten(tree, [np.stack([np.asarray(row[k]) for row in flat]) for k in range(len(flat[0]))])


def _staged(leaf: Any) -> Any:
    leaf = as_tensor(leaf)
    if isinstance(leaf, Tensor):
        if leaf.ndim == 0:
            raise StagingError(f"{where()}elems must have a first dimension to iterate over, not a scalar")
        return leaf
    array = np.asarray(leaf)
    if array.ndim == 0:
        raise StagingError(f"{where()}elems must have a first dimension to iterate over, not a scalar")
    return constant(array)


def _rows(leaves: list, what: str) -> Any:
    """The number of slices: a Python int when known, else the staged size of the first dimension."""
    if not leaves:
        raise StagingError(f"{where()}{what}: elems is empty; pass at least one array")
    known = {leaf.shape[0] for leaf in leaves if leaf.shape is not None and leaf.shape[0] is not None}
    if len(known) > 1:
        raise StagingError(f"{where()}{what}: the arrays in elems have different first dimensions {sorted(known)}")
    if known:
        return known.pop()
    return np.shape(leaves[0])[0]


def _dtype(value: Any) -> np.dtype:
    value = as_tensor(value)
    return value.dtype if isinstance(value, Tensor) else np.asarray(value).dtype


def _loop(step: Callable, carry: tuple, count: Any, start: int, first: Any, dtypes: list, tree: Any) -> tuple:
    """Run `carry, out = step(i, carry)` for i in [start, count) as one staged while loop.

    Each leaf of `out` (structure `tree`, leaf dtypes `dtypes`) is written at
    row i of its own TensorArray, stacked after the loop; `first` (a structure
    like `out`, or None) is row 0.
    """
    arrays = [TensorArray(dtype, size=count) for dtype in dtypes]
    if first is not None:
        arrays = [array.write(0, value) for array, value in zip(arrays, flatten(first)[0])]
    width = len(carry)

    def body(i: Any, *state: Any) -> tuple:
        new_carry, out = step(i, state[:width])
        out_leaves, out_tree = flatten(out)
        if out_tree != tree:
            raise StagingError(f"{where()}the function returns {out_tree} here but {tree} before")
        written = [array.write(i, value) for array, value in zip(state[width:], out_leaves)]
        return (i + 1, *new_carry, *written)

    results = while_loop(lambda i, *_: i < count, body, (np.int64(start), *carry, *arrays))
    stacked = [array.stack() for array in results[1 + width:]]
    return tuple(results[1:1 + width]), unflatten(tree, stacked)


def _probe(fn: Callable[[Any], Any], tree: Any, leaves: list) -> tuple[list, Any]:
    """The leaf dtypes and structure of `fn` on one slice, traced into a graph that is then dropped.

    map_fn's TensorArrays are loop variables, so they must exist before the
    loop body (the one trace that is kept) shows what `fn` returns.
    """
    probe = Graph("map_fn_probe", parent=current_graph())
    with building(probe):
        row_types = [TensorType(leaf.dtype, None if leaf.shape is None else leaf.shape[1:]) for leaf in leaves]
        element = unflatten(tree, [Tensor(probe.add_input(t, "row"), probe) for t in row_types])
        out_leaves, out_tree = flatten(fn(element))
        return [_dtype(leaf) for leaf in out_leaves], out_tree


# -- switch_case -------------------------------------------------------------
def switch_case(
    branch_index: Any, branch_fns: Sequence[Callable[[], Any]] | Mapping[int, Callable[[], Any]],
    default: Callable[[], Any] | None = None,
) -> Any:
    """The result of `branch_fns[branch_index]()`; `default()` (else the last branch) when out of range.

    As `tf.switch_case`: `branch_fns` is a list of callables, a dict from int
    keys to callables, or a list of (key, callable) pairs, with keys 0..N-1. A
    staged index is a chain of conds, each branch traced once; all branches
    must return the same structure and dtypes.
    """
    fns = _branches(branch_fns)
    index = as_tensor(branch_index)
    if not isinstance(index, Tensor):
        key = int(index)
        if 0 <= key < len(fns):
            return fns[key]()
        return (default or fns[-1])()
    if index.dtype.kind not in "iu" or (index.shape is not None and index.shape != ()):
        raise StagingError(
            f"{where()}ag.switch_case: branch_index must be a scalar integer, but it is {index.type}"
        )
    if default is None:  # the last branch takes its own index and every index out of range
        default, fns = fns[-1], fns[:-1]

    def chain(k: int) -> Any:
        if k == len(fns):
            return default()
        return cond(index == k, fns[k], lambda: chain(k + 1))

    return chain(0)


def _branches(branch_fns: Any) -> list[Callable[[], Any]]:
    if isinstance(branch_fns, Mapping):
        pairs = list(branch_fns.items())
    else:
        items = list(branch_fns)
        pairs = list(items) if items and all(isinstance(p, tuple) for p in items) else list(enumerate(items))
    if not pairs:
        raise ValueError("ag.switch_case needs at least one branch")
    keys = sorted(key for key, _ in pairs)
    if keys != list(range(len(pairs))):
        raise ValueError(f"ag.switch_case: branch keys must be 0..{len(pairs) - 1}, got {keys}")
    for key, fn in pairs:
        if not callable(fn):
            raise TypeError(f"ag.switch_case: branch {key} is a {type(fn).__name__}, not a callable")
    return [fn for _, fn in sorted(pairs, key=lambda p: p[0])]
