"""Tracing a staged while loop: body and test subgraphs over the loop variables.

The body is traced with the loop variables' types as its inputs. If it
returns a variable with a different shape, the differing dimensions become
None and the body is traced once more (shape invariants given by the user
are fixed instead: a change is an error). A dtype change is always an error
that suggests the initial value that would have worked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.graph import Graph, Node
from runtime.ir.origin import user_origin
from runtime.ir.structure import TreeDef, flatten, unflatten
from runtime.ir.subgraphs import outer_inputs
from runtime.ir.types import Shape, TensorType, merge_shapes
from runtime.tracing.leaves import as_tuple, leaf_names, predicate, rebuild, stage_leaf
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import building

__all__ = ["stage_while"]

_MAX_TRACES = 4


def _where(origin) -> str:
    return f"{origin}: " if origin is not None else ""


def stage_while(
    graph: Graph, cond: Callable[..., Any], body: Callable[..., Any], loop_vars: tuple,
    maximum_iterations: Any, shape_invariants: Any, names: Sequence[str] | None,
) -> tuple:
    """Record one "while" node in `graph` and return the loop variables after it."""
    origin = user_origin(3)
    leaves, tree = flatten(loop_vars)
    labels = leaf_names(tree, names, "loop variable")
    with building(graph):
        for label, leaf in zip(labels, leaves):
            if leaf is None:
                raise StagingError(
                    f"{_where(origin)}loop variable '{label}' is None; give it a value before the loop."
                )
        inits = [stage_leaf(leaf, graph, f"loop variable '{label}'") for label, leaf in zip(labels, leaves)]
    fixed = _invariants(shape_invariants, leaves, inits, labels, origin)
    types = [TensorType(n.type.dtype, fixed.get(i, n.type.shape)) for i, n in enumerate(inits)]
    for _ in range(_MAX_TRACES):
        body_graph, out_nodes, out_leaves = _trace_body(graph, body, tree, leaves, types, labels)
        new_types = _check_body(labels, leaves, types, out_nodes, fixed, origin)
        if new_types == types:
            break
        types = new_types
    cond_graph = _trace_cond(graph, cond, tree, leaves, types, labels, origin)
    limit = None if maximum_iterations is None else int(maximum_iterations)
    inputs = (*inits, *outer_inputs([cond_graph, body_graph]))
    attrs = {"cond": cond_graph, "body": body_graph, "maximum_iterations": limit}
    node = graph.add_node("while", inputs, attrs, tuple(types), origin, name="loop")
    results = []
    for index, (label, template, type_) in enumerate(zip(labels, out_leaves, types)):
        hint = label if label.isidentifier() else "loop_var"
        item = graph.add_node("getitem", (node,), {"index": index}, type_, origin, name=hint)
        results.append(rebuild(template, Tensor(item, graph)))
    return unflatten(tree, results)


def _invariants(spec: Any, leaves: list, inits: list[Node], labels, origin) -> dict[int, Shape]:
    """Leaf index -> fixed shape, from [(value, shape), ...] pairs or one shape per variable."""
    if not spec:
        return {}
    fixed: dict[int, Shape] = {}
    pairs = list(spec)
    if all(isinstance(p, tuple) and len(p) == 2 and not _is_shape(p) for p in pairs):
        for value, shape in pairs:
            index = _find_leaf(value, leaves, inits)
            if index is None:
                raise StagingError(f"{_where(origin)}a shape invariant names a value that is not a loop variable")
            fixed[index] = None if shape is None else tuple(shape)
    elif len(pairs) == len(leaves):
        fixed = {i: None if s is None else tuple(s) for i, s in enumerate(pairs)}
    else:
        raise StagingError(
            f"{_where(origin)}shape_invariants must be (variable, shape) pairs or one shape per loop variable"
        )
    for index, shape in fixed.items():
        if not _fits(shape, inits[index].type.shape):
            raise StagingError(
                f"{_where(origin)}loop variable '{labels[index]}' starts with shape "
                f"{inits[index].type.shape_str()}, which does not fit its shape invariant {shape}"
            )
    return fixed


def _fits(spec: Shape, shape: Shape) -> bool:
    """Whether `shape` is an instance of `spec` (None dimensions or rank match anything)."""
    if spec is None:
        return True
    if shape is None or len(spec) != len(shape):
        return False
    return all(s is None or s == d for s, d in zip(spec, shape))


def _is_shape(value: tuple) -> bool:
    return all(d is None or isinstance(d, (int, np.integer)) for d in value)


def _find_leaf(value: Any, leaves: list, inits: list[Node]) -> int | None:
    for index, leaf in enumerate(leaves):
        if leaf is value:
            return index
    if isinstance(value, Tensor):
        for index, node in enumerate(inits):
            if node is value.node:
                return index
    return None


def _loop_inputs(sub: Graph, tree: TreeDef, leaves: list, types, labels) -> Any:
    wrapped = []
    for leaf, type_, label in zip(leaves, types, labels):
        hint = label if label.isidentifier() else "loop_var"
        wrapped.append(rebuild(leaf, Tensor(sub.add_input(type_, hint), sub)))
    return unflatten(tree, wrapped)


def _trace_body(graph: Graph, body, tree: TreeDef, leaves: list, types, labels):
    sub = Graph("while_body", parent=graph)
    with building(sub):
        loop_vars = _loop_inputs(sub, tree, leaves, types, labels)
        result = as_tuple(body(*loop_vars), len(loop_vars))
        out_leaves, out_tree = flatten(result)
        if out_tree != tree:
            raise StagingError(
                f"{_where(user_origin(2))}the loop body returns {out_tree} but the loop variables "
                f"are {tree}; return every loop variable, with the same nesting."
            )
        nodes = [stage_leaf(v, sub, f"loop variable '{label}'") for v, label in zip(out_leaves, labels)]
    sub.set_outputs(nodes)
    sub.finish()
    return sub, nodes, out_leaves


def _check_body(labels, leaves, types, out_nodes, fixed, origin) -> list[TensorType]:
    new_types = []
    for index, (label, leaf, type_, out) in enumerate(zip(labels, leaves, types, out_nodes)):
        if out.type.dtype != type_.dtype:
            raise StagingError(
                f"{_where(origin)}{label} starts as {type_.dtype.name} but the loop makes it "
                f"{out.type.dtype.name}; a loop variable keeps one dtype. Initialise it as "
                f"{_suggestion(label, leaf, out.type.dtype)}."
            )
        shape = merge_shapes(type_.shape, out.type.shape)
        if index in fixed:
            if not _fits(type_.shape, out.type.shape):
                raise StagingError(
                    f"{_where(origin)}loop variable '{label}' has the shape invariant "
                    f"{type_.shape_str()} but the loop body makes it {out.type.shape_str()}; relax "
                    f"the invariant (None for dimensions that change)."
                )
            shape = type_.shape
        new_types.append(TensorType(type_.dtype, shape))
    return new_types


def _suggestion(label: str, leaf: Any, dtype: np.dtype) -> str:
    cast = f"{label}.astype(np.{dtype.name})"
    if isinstance(leaf, (bool, int, float, np.generic)) and dtype.kind in "biufc":
        literal = repr(np.asarray(leaf).astype(dtype).item())
        return f"{literal} or {cast}"
    return cast


def _trace_cond(graph: Graph, cond, tree: TreeDef, leaves: list, types, labels, origin) -> Graph:
    sub = Graph("while_cond", parent=graph)
    with building(sub):
        result = cond(*_loop_inputs(sub, tree, leaves, types, labels))
        node = stage_leaf(result, sub, "the loop condition")
        if node.type.shape is not None and math.prod([d or 1 for d in node.type.shape]) != 1:
            raise StagingError(
                f"{_where(origin)}the loop condition must be a scalar, but it is {node.type}; reduce "
                f"it first, e.g. with np.any(...) or np.all(...)."
            )
        node = predicate(node, sub)
    sub.set_outputs([node])
    sub.finish()
    return sub
