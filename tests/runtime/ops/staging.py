"""Check a staged computation against NumPy: inferred type, impl, emitted code, compiled graph.

`check(fn, *values)` records `fn` on graph inputs shaped like `values`, then
compares with `fn(*values)` run by NumPy: each output's inferred TensorType
must be exactly NumPy's dtype and fit its shape; running the graph with the
ops' `impl` and, separately, by evaluating each op's `emit` expression must
give NumPy's values, and so must the whole graph compiled by `runtime.backends.numpy.compiler`.

Python values (scalars, lists) are passed to `fn` as they are; arrays become
graph inputs. `unknown` marks input dims as None (an input number: all its
dims; a pair (input, dim): one dim) and `unknown_rank` whole shapes, to check
the rules for partly known shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.ir.graph import Graph
from runtime.ir.structure import flatten
from runtime.ir.types import TensorType
from runtime.ops import get_op
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import building

__all__ = ["check", "stage", "run_graph", "assert_same"]


def stage(fn: Callable, values: Sequence[Any], unknown: Sequence[int] = (), unknown_rank: Sequence[int] = ()):
    """(graph, staged outputs as leaves) for `fn` on inputs typed like `values`."""
    graph = Graph("check")
    inputs = []
    for i, value in enumerate(values):
        if not isinstance(value, (np.ndarray, np.generic)):
            inputs.append(value)  # Python values stay Python values (weak scalars, lists, keys)
            continue
        array = np.asarray(value)
        shape = None if i in unknown_rank else tuple(
            None if i in unknown or (i, k) in unknown else d for k, d in enumerate(array.shape)
        )
        inputs.append(Tensor(graph.add_input(TensorType(array.dtype, shape), f"x{i}"), graph))
    with building(graph):
        out = fn(*inputs)
    leaves, _ = flatten(out)
    return graph, leaves


def run_graph(graph: Graph, values: Sequence[Any], use_emit: bool) -> dict:
    """Every node's value, computed with `impl` or by evaluating `emit`."""
    env: dict = {}
    names: dict = {}
    inputs = iter(v for v in values if isinstance(v, (np.ndarray, np.generic)))
    for node in graph.nodes:
        if node.op == "input":
            value = np.asarray(next(inputs))
        elif node.op == "constant":
            value = node.attrs["value"]
        else:
            op = get_op(node.op)
            args = [env[n] for n in node.inputs]
            with np.errstate(all="ignore"):
                if use_emit:
                    expr = op.emit([n.name for n in node.inputs], node.attrs)
                    value = eval(expr, {"np": np}, {n.name: env[n] for n in node.inputs})
                else:
                    value = op.impl(*args, **node.attrs)
        env[node] = value
        names[node.name] = value
    return env


def assert_same(actual: Any, expected: Any) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-12, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


def fits(t: TensorType, value: Any) -> bool:
    array = np.asarray(value)
    if t.dtype != array.dtype:
        return False
    if t.shape is None:
        return True
    return len(t.shape) == array.ndim and all(d is None or d == v for d, v in zip(t.shape, array.shape))


def check(
    fn: Callable, *values: Any, unknown: Sequence[Any] = (), unknown_rank: Sequence[int] = (),
    exact: bool | None = None, compiled: bool = True,
) -> list:
    """Stage `fn`, compare its types, impl results, emitted code and compiled graph with NumPy."""
    with np.errstate(all="ignore"):
        expected_out = fn(*values)
    expected, _ = flatten(expected_out)
    graph, leaves = stage(fn, values, unknown, unknown_rank)
    assert len(leaves) == len(expected)
    exact = exact if exact is not None else not unknown and not unknown_rank
    for leaf, want in zip(leaves, expected):
        if isinstance(leaf, Tensor):
            if exact:
                assert leaf.type == TensorType(np.asarray(want).dtype, np.shape(want)), (leaf.type, np.asarray(want).dtype, np.shape(want))
            else:
                assert fits(leaf.type, want), (leaf.type, np.asarray(want).dtype, np.shape(want))
    for use_emit in (False, True):
        env = run_graph(graph, values, use_emit)
        for leaf, want in zip(leaves, expected):
            got = env[leaf.node] if isinstance(leaf, Tensor) else leaf
            assert_same(got, want)
    if compiled:
        run_compiled(graph, values, leaves, expected)
    return leaves


def run_compiled(graph: Graph, values: Sequence[Any], leaves: list, expected: list) -> None:
    """The graph optimised and compiled by runtime.backends.numpy.compiler gives NumPy's values too."""
    from runtime.backends.numpy.compiler import compile_graph

    staged = [(leaf, want) for leaf, want in zip(leaves, expected) if isinstance(leaf, Tensor)]
    if not staged:
        return
    graph.set_outputs([leaf.node for leaf, _ in staged])
    graph.finish()
    with np.errstate(all="ignore"):
        outputs = compile_graph(graph)(*(v for v in values if isinstance(v, (np.ndarray, np.generic))))
    for (_, want), got in zip(staged, outputs):
        assert_same(got, want)
