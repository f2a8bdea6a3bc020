"""Op: one operation's rules declared side by side.

Every op states how to infer its output type from its input types and
attributes (`infer`), how to compute it on NumPy values (`impl`, used by the
reference interpreter and constant folding) and, optionally, the Python
expression the compiler emits for it (`emit`; without one the compiler calls
`impl` through a bound name).

    ADD = register(Op("add", infer=broadcast_binary, impl=np.add,
                      emit=lambda args, attrs: f"{args[0]} + {args[1]}"))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.ir.types import TensorType

__all__ = ["Op", "OPS", "register", "get_op"]

InferFn = Callable[[Sequence[TensorType], Mapping[str, Any]], "TensorType | tuple[TensorType, ...]"]
EmitFn = Callable[[Sequence[str], Mapping[str, Any]], str]


@dataclass(frozen=True, slots=True)
class Op:
    """An operation: name, type rule, NumPy implementation, emitted code.

    `effectful` ops (print, assign, assert, py_function) are never folded,
    deduplicated or removed, and keep their order. `stateful` ops (variable
    reads) depend on state that effectful ops change: they are never folded or
    deduplicated, but may be removed when nothing uses them. An `inplace` op
    may mutate its first input (a TensorArray buffer): the compiler passes it a
    copy whenever that input is still used elsewhere.
    """

    name: str
    infer: InferFn
    impl: Callable[..., Any]
    emit: EmitFn | None = None
    effectful: bool = False
    stateful: bool = False
    inplace: bool = False
    numpy: Callable[..., Any] | None = None  # the NumPy callable `impl` applies, for other backends to map
    path: str | None = None  # where that callable lives, as source: "np.tanh", "np.linalg.inv"


OPS: dict[str, Op] = {}


def register(op: Op) -> Op:
    if op.name in OPS:
        raise AssertionError(f"op {op.name!r} registered twice")
    OPS[op.name] = op
    return op


def get_op(name: str) -> Op:
    try:
        return OPS[name]
    except KeyError:
        raise AssertionError(f"unknown op {name!r}; registered: {sorted(OPS)}") from None
