"""`check=True`: run the plain Python function beside the graph and compare the results.

A silently wrong result is the worst bug a converter can have (TF#126891): a
graph that computes in another dtype, reads a stale Python value, or stages a
branch differently. With `ag.function(..., check=True)` every call also runs
the original Python function on copies of the same inputs, and a
`ParityError` shows both results and the first element that differs.

Results are compared leaf by leaf after flattening: the same nesting, the same
shapes, integers and bools exactly, floats within a tolerance that fits the
less precise of the two dtypes (`TOLERANCE`). A graph's Python-number output
comes back as a NumPy scalar, which compares by value with the Python number;
two NumPy values must also have the same dtype (float32 accumulated as
float64 is a different result even where the values happen to be close).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.errors import AutographError
from runtime.ir.structure import flatten, map_structure

__all__ = ["ParityError", "check_parity", "copied_inputs", "TOLERANCE"]

# (rtol, atol) by the float precision of the less precise side
TOLERANCE = {2: (1e-3, 1e-5), 4: (1e-5, 1e-7), 8: (1e-7, 1e-12)}


class ParityError(AutographError):
    """With check=True, the graph's result differed from the plain Python function's."""


def copied_inputs(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments with every array copied: the Python run must not see the graph's writes
    (nor the graph see the Python run's in-place updates)."""
    def copy(leaf: Any) -> Any:
        return leaf.copy() if isinstance(leaf, np.ndarray) else leaf

    return map_structure(copy, args), map_structure(copy, kwargs)


def check_parity(name: str, graph_result: Any, python_result: Any) -> None:
    """Raise ParityError when the two results disagree beyond the float tolerance."""
    problem = _first_difference(graph_result, python_result)
    if problem is None:
        return
    raise ParityError(
        f"{name}: its graph and the plain Python function disagree (ag.function(..., check=True)).\n"
        f"  graph:  {_show(graph_result)}\n  python: {_show(python_result)}\n{problem}\n"
        f"f.experimental_get_tracing_history() shows what each trace was specialised on, and "
        f"ag.explain(f, ...) what became of each statement; see docs/why_slow_or_different.md."
    )


def _first_difference(graph_result: Any, python_result: Any) -> str | None:
    graph_leaves, graph_tree = flatten(graph_result)
    python_leaves, python_tree = flatten(python_result)
    if graph_tree != python_tree:
        return f"the structures differ: graph {graph_tree}, python {python_tree}"
    for position, (g, p) in enumerate(zip(graph_leaves, python_leaves)):
        where = "the result" if len(graph_leaves) == 1 else f"output leaf {position}"
        problem = _leaf_difference(g, p, where)
        if problem is not None:
            return problem
    return None


def _leaf_difference(graph_leaf: Any, python_leaf: Any, where: str) -> str | None:
    if graph_leaf is None or python_leaf is None:
        return None if graph_leaf is python_leaf else f"{where}: graph {graph_leaf!r}, python {python_leaf!r}"
    g, p = np.asarray(graph_leaf), np.asarray(python_leaf)
    if g.shape != p.shape:
        return f"{where}: shapes differ: graph {g.shape}, python {p.shape}"
    if isinstance(python_leaf, (np.ndarray, np.generic)) and g.dtype != p.dtype:
        return f"{where}: dtypes differ: graph {g.dtype}, python {p.dtype}{_values(g, p)}"
    numeric = g.dtype.kind in "biufc" and p.dtype.kind in "biufc"
    if not numeric:
        same = g == p
    elif g.dtype.kind in "fc" or p.dtype.kind in "fc":
        size = min(_float_size(g.dtype), _float_size(p.dtype))
        rtol, atol = TOLERANCE.get(size, TOLERANCE[8])
        same = np.isclose(g, p, rtol=rtol, atol=atol, equal_nan=True)
    else:
        same = g == p
    same = np.asarray(same)
    if same.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~same)[0]) if same.ndim else ()
    at = f" at index {index}" if index else ""
    gv, pv = g[index] if index else g[()], p[index] if index else p[()]
    tolerance = f" (beyond rtol={rtol:g}, atol={atol:g})" if numeric and (g.dtype.kind in "fc" or p.dtype.kind in "fc") else ""
    return (
        f"first difference in {where}{at}: graph {gv!r} ({g.dtype}), python {pv!r} ({p.dtype})"
        f"{tolerance}"
    )


def _values(g: np.ndarray, p: np.ndarray) -> str:
    if g.ndim == 0:
        return f" (graph {g[()]!r}, python {p[()]!r})"
    return ""


def _float_size(dtype: np.dtype) -> int:
    if dtype.kind == "f":
        return dtype.itemsize
    if dtype.kind == "c":
        return dtype.itemsize // 2
    return 8  # an integer compared with a float: the float's precision decides


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 300 else text[:297] + "..."
