"""The fast call of a trace: one generated function that checks and runs it.

A call that hits the cache pays for the call path, not the NumPy work, so a
trace whose arguments are plain (no containers, every tensor input of a fixed
dtype and shape, every other argument a Python number or string) gets one
generated function that does it all at once: it tests each argument against
the trace, calls the compiled graph and returns the NumPy result.

    def add_one(x=MISS, *extra):
        if extra or x.__class__ is not ndarray or x.dtype is not D0 or x.shape != S0:
            return MISS
        return graph(x)[0]

It returns `MISS` instead of raising when the arguments are not exactly
those of the trace (another dtype or shape, a left-out argument, a Python
number instead of an array): the caller then takes the general path, which
binds, converts, explains the mismatch or traces. Because the tests are the
exact cache key of the trace, the fast call never runs a trace the general
path would not have chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from autograph.tracing.keys import PRIMITIVES
from autograph.tracing.spec import TensorSpec
from runtime.compile import output_value
from runtime.structure import LEAF
from runtime.types import TensorType

__all__ = ["MISS", "never", "build_fast_call"]

_RESERVED = frozenset({"extra", "ndarray", "graph", "scalar", "pack"})
MISS = object()  # returned by a fast call whose arguments are not those of its trace


def never(*args: Any) -> Any:
    """The fast call of a Function with no trace to run fast yet."""
    return MISS


def build_fast_call(cf: Any) -> Callable[..., Any]:
    """The fast call of ConcreteFunction `cf` (or `never` when its arguments are not plain)."""
    tree, plan = cf.in_tree, cf.in_plan
    if not cf.signature.all_positional or tree.kind != "tuple":
        return never
    if any(child != LEAF for child in tree.children) or not all(map(_plain, plan)):
        return never
    namespace: dict[str, Any] = {
        "MISS": MISS, "ndarray": np.ndarray, "graph": cf._compiled.function, "scalar": output_value,
    }
    names = _param_names(cf.signature.names)
    tests = ["extra"] + [_test(i, name, part, namespace) for i, (name, part) in enumerate(zip(names, plan))]
    call = f"graph({', '.join(n for n, p in zip(names, plan) if isinstance(p, TensorSpec))})"
    result = _result(cf, call, namespace)
    params = "".join(f"{name}=MISS, " for name in names)
    fn_name = cf.name if cf.name.isidentifier() and cf.name not in namespace else "fast_call"
    lines = [
        f"def {fn_name}({params}*extra):",
        f"    if {' or '.join(tests)}:",
        "        return MISS",
        f"    return {result}",
    ]
    exec(compile("\n".join(lines) + "\n", f"<fast call of {cf.name}>", "exec"), namespace)  # noqa: S102
    return namespace[fn_name]


def _param_names(names: tuple[str, ...]) -> list[str]:
    """The parameters' own names, unless one could clash with a name of the generated code."""
    if all(name.islower() and name.isidentifier() and name not in _RESERVED for name in names):
        return list(names)
    return [f"a{i}" for i in range(len(names))]


def _plain(part: Any) -> bool:
    """A key part the fast call can test: a fixed NumPy type, or a Python number or string."""
    if isinstance(part, TensorSpec):
        shape = part.shape
        return part.dtype != object and shape is not None and None not in shape
    return type(part) is tuple and part[0] in PRIMITIVES


def _test(index: int, name: str, part: Any, namespace: dict[str, Any]) -> str:
    """A test that is true when argument `name` does *not* fit key part `part`."""
    if isinstance(part, TensorSpec):
        namespace[f"D{index}"] = part.dtype
        if part.shape == ():  # a NumPy scalar, or a 0-d array
            namespace[f"T{index}"] = part.dtype.type
            kind = f"{name}.__class__ is not T{index} and {name}.__class__ is not ndarray"
            return f"{kind} or {name}.dtype is not D{index} or {name}.shape != ()"
        namespace[f"S{index}"] = part.shape
        return (
            f"{name}.__class__ is not ndarray or {name}.dtype is not D{index} "
            f"or {name}.shape != S{index}"
        )
    kind, value = part
    namespace[f"K{index}"] = kind
    if kind is type(None):
        return f"{name} is not None"
    if value != value:  # NaN keys every NaN alike
        return f"{name}.__class__ is not K{index} or {name} == {name}"
    namespace[f"V{index}"] = value
    return f"{name}.__class__ is not K{index} or {name} != V{index}"


def _result(cf: Any, call: str, namespace: dict[str, Any]) -> str:
    """The returned expression: the output itself when it is one leaf, else packed by `cf`."""
    plan = cf.out_plan
    if cf.out_tree == LEAF and isinstance(plan[0], int):
        out_type = cf.graph.outputs[plan[0]].type
        if isinstance(out_type, TensorType) and out_type.dtype != object:
            if out_type.rank is not None and out_type.rank > 0:
                return f"{call}[{plan[0]}]"
            return f"scalar({call}[{plan[0]}])"
    namespace["pack"] = cf.pack
    return f"pack({call})"


