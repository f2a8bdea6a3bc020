"""The names of a staged for loop's target, given to the values they bind.

`for i in ag.range(1, n + 1)` binds `i` to `iteration + 1`, a node the trace
would name `add`; `for x, y in dataset` binds `x` and `y` to rows it would
name `index`. The converter passes the target as written (`iterate_names`),
so the graph, and the code compiled from it, can show the user's names.
"""

from __future__ import annotations

import ast
from typing import Any

from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import current_graph

__all__ = ["loop_target", "name_targets"]


def loop_target(iterate_names: str | None, body: Any) -> str | None:
    """The loop's target as written: a loop over one name passes no iterate_names, its body's
    parameter is that name."""
    if iterate_names:
        return iterate_names
    code = getattr(body, "__code__", None)
    return code.co_varnames[0] if code is not None and code.co_argcount else None


def name_targets(item: Any, iterate_names: str | None) -> None:
    """Name the staged values of `item` after the target names they are bound to."""
    if not iterate_names:
        return
    if iterate_names.isidentifier():
        _name(item, iterate_names)
        return
    try:
        target = ast.parse(iterate_names.strip(), mode="eval").body
    except SyntaxError:
        return
    _walk(item, target)


def _walk(item: Any, target: ast.expr) -> None:
    if isinstance(target, ast.Name):
        _name(item, target.id)
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(item, tuple) and len(item) == len(target.elts):
        for value, part in zip(item, target.elts):
            _walk(value, part)


def _name(value: Any, name: str) -> None:
    graph = current_graph()
    if isinstance(value, Tensor) and graph is not None:
        graph.name_hint(value.node, name)
