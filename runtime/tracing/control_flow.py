"""cond and while_loop: tensor-dependent control flow as graph nodes.

A Tensor predicate traces each branch once into its own subgraph
(`Graph("cond_true", parent=...)`); the result is one "cond" node whose
inputs are the predicate and the outer tensors the branches captured, read
with "getitem" nodes. A while loop traces its test and body once (twice when
a loop variable's shape changes and must be generalised) into one "while"
node. Concrete predicates and loops outside a trace simply run in Python.

Leaves of branch results and loop variables are Tensors, concrete values
(which become constants), or objects that stage as a Tensor: anything with
`__autograph_tensor__()` (a Variable is read; a TensorArray gives its handle)
and, to come back as the same kind of object, `__autograph_rebuild__(tensor)`
(a cond first asks the true branch's object to `__autograph_join__` the false
branch's, so the rebuilt object only claims what holds in both).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.graph import Graph
from runtime.ir.origin import user_origin
from runtime.ir.structure import flatten, unflatten
from runtime.ir.subgraphs import outer_inputs
from runtime.ir.types import TensorType, merge_shapes
from runtime.tracing.leaves import (
    as_tensor,
    as_tuple,
    leaf_names,
    predicate,
    rebuild,
    stage_leaf,
    where,
)
from runtime.tracing.loop_tracing import stage_while
from runtime.tracing.record import constant_node
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import building, current_graph

__all__ = ["cond", "while_loop"]


# -- cond --------------------------------------------------------------------
def cond(
    pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any],
    *, names: Sequence[str] | None = None,
) -> Any:
    """`true_fn()` if pred else `false_fn()`; staged as one "cond" node when pred is a Tensor."""
    pred = as_tensor(pred)
    if not isinstance(pred, Tensor):
        return true_fn() if pred else false_fn()
    graph = current_graph()
    if graph is None:
        raise StagingError(f"{where()}a Tensor predicate was used outside of a trace")
    pred_node = graph.own(pred.node)
    if pred.shape is not None and math.prod(d or 1 for d in pred.shape) != 1:
        raise StagingError(
            f"{where()}the condition of a tensor-dependent if must be a scalar, but it is "
            f"{pred.type}; reduce it first, e.g. with np.any(...) or np.all(...)."
        )
    pred_node = predicate(pred_node, graph)
    branches = [_trace_branch(name, fn, graph) for name, fn in (("cond_true", true_fn), ("cond_false", false_fn))]
    (true_graph, true_leaves, true_tree, true_nodes), (false_graph, false_leaves, false_tree, false_nodes) = branches
    if true_tree != false_tree:
        raise StagingError(
            f"{where()}the branches of a tensor-dependent if return different structures: "
            f"{true_tree} in the true branch and {false_tree} in the false branch. Make both "
            f"branches produce the same variables with the same nesting."
        )
    labels = leaf_names(true_tree, names, "the result")
    _adapt_python_scalars(branches)
    types = _merge_branch_types(labels, true_nodes, false_nodes)
    true_graph.set_outputs([n for n in true_nodes if n is not None])
    false_graph.set_outputs([n for n in false_nodes if n is not None])
    true_graph.finish()
    false_graph.finish()
    inputs = (pred_node, *outer_inputs([true_graph, false_graph]))
    node = graph.add_node(
        "cond", inputs, {"true": true_graph, "false": false_graph}, tuple(t for t in types if t is not None),
        user_origin(2),
    )
    results, index = [], 0
    for label, leaf, other, node_type in zip(labels, true_leaves, false_leaves, types):
        if node_type is None:
            results.append(None)
            continue
        if hasattr(leaf, "__autograph_join__"):
            leaf = leaf.__autograph_join__(other)
        item = graph.add_node("getitem", (node,), {"index": index}, node_type, node.origin, name=_hint(label))
        results.append(rebuild(leaf, Tensor(item, graph)))
        index += 1
    return unflatten(true_tree, results)


def _hint(label: str) -> str:
    return label if label.isidentifier() else "cond"


def _trace_branch(name: str, fn: Callable[[], Any], parent: Graph):
    sub = Graph(name, parent=parent)
    with building(sub):
        result = fn()
        leaves, tree = flatten(result)
        nodes = [None if leaf is None else stage_leaf(leaf, sub, "a branch result") for leaf in leaves]
    return sub, leaves, tree, nodes


def _adapt_python_scalars(branches) -> None:
    """Python numbers in one branch take the other branch's dtype, as NumPy's weak scalars do.

    `t if c else 0.0` with a float32 `t` is float32 in NumPy, so the staged cond
    gives 0.0 the dtype float32 rather than failing on float32 vs float64.
    """
    (true_graph, true_leaves, _, true_nodes), (false_graph, false_leaves, _, false_nodes) = branches
    for i, (a, b) in enumerate(zip(true_leaves, false_leaves)):
        weak_a, weak_b = _is_python_number(a), _is_python_number(b)
        if not (weak_a or weak_b) or true_nodes[i] is None or false_nodes[i] is None:
            continue
        if weak_a and weak_b:
            dtype = np.result_type(a, b)
        else:
            strong = (false_nodes if weak_a else true_nodes)[i].type.dtype
            dtype = np.result_type(strong, a if weak_a else b)
            if dtype != strong:
                continue
        for graph, nodes, weak, value in ((true_graph, true_nodes, weak_a, a), (false_graph, false_nodes, weak_b, b)):
            if weak and nodes[i].type.dtype != dtype:
                with building(graph):
                    nodes[i] = constant_node(np.asarray(value, dtype=dtype), graph)


def _is_python_number(value: Any) -> bool:
    return type(value) in (bool, int, float)


def _merge_branch_types(labels, true_nodes, false_nodes) -> list[TensorType | None]:
    types: list[TensorType | None] = []
    for label, a, b in zip(labels, true_nodes, false_nodes):
        if a is None and b is None:
            types.append(None)
            continue
        if a is None or b is None:
            side = "true" if a is None else "false"
            raise StagingError(
                f"{where()}'{label}' is None in the {side} branch of a tensor-dependent if but a "
                f"tensor in the other; give it a value in both branches."
            )
        if a.type.dtype != b.type.dtype:
            common = np.result_type(a.type.dtype, b.type.dtype)
            raise StagingError(
                f"{where()}'{label}' is {a.type} in the true branch but {b.type} in the false "
                f"branch of a tensor-dependent if; both branches must give it the same dtype. "
                f"Cast it in both, e.g. {label}.astype(np.{common.name})."
            )
        types.append(TensorType(a.type.dtype, merge_shapes(a.type.shape, b.type.shape)))
    return types


# -- while_loop --------------------------------------------------------------
def while_loop(
    cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Sequence[Any],
    *, maximum_iterations: int | None = None, shape_invariants: Any = None,
    names: Sequence[str] | None = None,
) -> tuple:
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; one "while" node in a trace."""
    if not isinstance(loop_vars, (tuple, list)):
        raise TypeError(f"loop_vars must be a tuple or list, not {type(loop_vars).__name__}")
    graph = current_graph()
    if graph is None:
        return _python_loop(cond, body, tuple(loop_vars), maximum_iterations)
    if isinstance(as_tensor(maximum_iterations), Tensor):
        return _bounded_by_tensor(graph, cond, body, tuple(loop_vars), as_tensor(maximum_iterations),
                                  shape_invariants, names)
    return stage_while(graph, cond, body, tuple(loop_vars), maximum_iterations, shape_invariants, names)


def _bounded_by_tensor(graph, test, body, loop_vars: tuple, limit: Tensor, shape_invariants, names) -> tuple:
    """A Tensor `maximum_iterations`: count iterations in an extra loop variable.

    The user's test runs only while the count is below the limit (a cond in
    the loop test), so its effects happen exactly as often as with an int bound.
    """
    count = len(loop_vars)

    def bounded_test(*values):
        return cond(values[count] < limit, lambda: test(*values[:count]), lambda: False)

    def bounded_body(*values):
        return (*as_tuple(body(*values[:count]), count), values[count] + 1)

    names = None if names is None else (*names, "iterations")
    result = stage_while(graph, bounded_test, bounded_body, (*loop_vars, np.int64(0)), None,
                         shape_invariants, names)
    return result[:count]


def _python_loop(cond, body, loop_vars: tuple, maximum_iterations) -> tuple:
    iterations = 0
    while (maximum_iterations is None or iterations < maximum_iterations) and cond(*loop_vars):
        loop_vars = as_tuple(body(*loop_vars), len(loop_vars))
        iterations += 1
    return loop_vars
