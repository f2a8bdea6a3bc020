"""Tracing: run a Python function on symbolic inputs and record a Graph.

Every leaf of the arguments that has a TensorSpec becomes a graph input
named after its parameter (a Tensor the function sees); every other leaf is
passed as is and baked into the trace. The returned structure is flattened:
tensors, Variables and numbers become graph outputs, `None` and other objects
are kept as they are.

    >>> def double(a):
    ...     return a + a
    >>> leaves, tree = flatten((TensorSpec([], np.int64),))
    >>> cf = trace_function(double, "double", Signature.of(double), tree, leaves, leaves)
    >>> [(n.input, n.name) for n in cf.graph.as_graph_def().node]
    [([], 'a'), (['a', 'a'], 'add'), (['add'], 'Identity')]
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from autograph.random_draws import seeded_generators
from autograph.source.deep import run_deep
from autograph.tracing.concrete import ConcreteFunction, Static
from autograph.tracing.keys import is_variable, leaf_key
from autograph.tracing.report import recursion_error
from autograph.tracing.signature import Signature
from autograph.tracing.spec import TensorSpec
from autograph.tracing.unknown_dims import unknown_dimension_error
from runtime.ir.errors import StagingError
from runtime.ir.graph import Graph, Node
from runtime.ir.structure import TreeDef, flatten, unflatten
from runtime.tracing.record import as_node
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import building

__all__ = ["trace_function"]

_NUMBERS = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def trace_function(
    fn: Callable[..., Any],
    name: str,
    signature: Signature,
    tree: TreeDef,
    leaves: list,
    specs: list[TensorSpec | None],
    backend: str = "numpy",
) -> ConcreteFunction:
    """Trace `fn` for arguments `unflatten(tree, leaves)`; `specs[i]` marks tensor inputs.

    A function whose staged constructs nest deeply (`_is_deep`) is traced,
    optimised and compiled on a deep stack; a graph its backend still cannot
    compile that deep is a StagingError.
    """

    def job() -> ConcreteFunction:
        return _trace(fn, name, signature, tree, leaves, specs, backend)

    if not _is_deep(fn):
        return job()
    try:
        return run_deep(job)
    except (RecursionError, MemoryError, SyntaxError) as error:  # past the trace: the graph's passes or codegen
        raise _backend_too_deep(fn, name, backend, error) from None


def _backend_too_deep(fn: Callable[..., Any], name: str, backend: str, error: BaseException) -> StagingError:
    while isinstance(fn, functools.partial):
        fn = fn.func
    code = getattr(getattr(fn, "__autograph_converted_from__", None), "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}: " if code is not None else ""
    return StagingError(
        f"{where}the graph of {name} nests staged conditionals deeper than the {backend!r} backend can compile "
        f"({type(error).__name__}: {getattr(error, 'msg', None) or error}). Split the chain that stages them "
        f"(an elif chain or chained conditional expressions on tensors): assign parts of it to variables, "
        f"move part of it into a function, or look the value up (an array indexed by the value)."
    )


def _trace(
    fn: Callable[..., Any],
    name: str,
    signature: Signature,
    tree: TreeDef,
    leaves: list,
    specs: list[TensorSpec | None],
    backend: str,
) -> ConcreteFunction:
    graph = Graph(name)
    leaf_names = _leaf_param_names(tree, signature.names)
    traced = []
    for leaf, spec, param in zip(leaves, specs, leaf_names):
        if spec is None:
            traced.append(leaf)
        else:
            traced.append(Tensor(graph.add_input(spec.type, spec.name or param), graph))
    args, kwargs = signature.to_call(unflatten(tree, traced))
    with building(graph), seeded_generators():
        try:
            result = fn(*args, **kwargs)
        except RecursionError as error:
            raise recursion_error(name, error) from None
        except Exception as error:
            # the error a staged construct raised while tracing inside the user's try/with comes
            # first: a `finally:` (or `__exit__`) then failing on what it left behind is its consequence
            refused = graph.refused
            if refused is not None and refused is not error:
                refused.__suppress_context__ = True  # keeps its own cause, if any
                raise refused  # noqa: B904 - the consequence is not the cause
            unknown = unknown_dimension_error(error, graph.inputs) if isinstance(error, TypeError) else None
            if unknown is None:
                raise
            raise unknown from None
        if graph.refused is not None:
            raise graph.refused
        out_leaves, out_tree = flatten(result)
        nodes: list[Node] = []
        out_plan = [_output(leaf, graph, nodes) for leaf in out_leaves]
    graph.set_outputs(nodes)
    graph.finish()
    in_plan = tuple(spec if spec is not None else leaf_key(leaf) for leaf, spec in zip(leaves, specs))
    return ConcreteFunction(name, signature, graph, tree, in_plan, out_tree, tuple(out_plan), backend)


def _is_deep(fn: Callable[..., Any]) -> bool:
    """Whether converted `fn` may nest staged constructs deeper than the default stack holds
    (live_conversion marks it): its trace runs on a deep stack (autograph.source.deep)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__autograph_deep__", False)


def _output(leaf: Any, graph: Graph, nodes: list[Node]) -> int | Static:
    """Where one returned leaf comes from: a graph output index, or a static value."""
    if isinstance(leaf, Tensor):
        node = leaf.node
    elif is_variable(leaf):
        node = as_node(leaf, graph)
    elif isinstance(leaf, _NUMBERS):
        node = as_node(leaf, graph)
    else:
        return Static(leaf)
    nodes.append(node)
    return len(nodes) - 1


def _leaf_param_names(tree: TreeDef, names: tuple[str, ...]) -> list[str]:
    """The parameter each flattened leaf belongs to (graph inputs are named after it)."""
    result: list[str] = []
    for child, name in zip(tree.children, names):
        result.extend([name] * child.num_leaves)
    return result
