"""The control ops: cond, while and getitem, declared like every other op.

Their type is given by the trace (a cond's outputs are its branches' merged
types), so `infer` only reads it back for getitem; backends lower cond and
while structurally (their subgraphs are `runtime.ir.subgraphs`), never through
`impl`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from runtime.ir.opcodes import COND, GETITEM, WHILE
from runtime.ir.types import TensorType
from runtime.ops.registry import Op, register

__all__ = ["COND_OP", "WHILE_OP", "GETITEM_OP"]


def _structural(*args: Any, **attrs: Any) -> Any:
    raise AssertionError("cond/while nodes are run by the backends structurally, not by impl")


def _getitem_infer(types: Sequence[Any], attrs: Mapping[str, Any]) -> TensorType:
    return types[0][attrs["index"]]


def _getitem(value: Sequence[Any], index: int) -> Any:
    return value[index]


COND_OP = register(Op(COND, infer=_structural, impl=_structural))
WHILE_OP = register(Op(WHILE, infer=_structural, impl=_structural))
GETITEM_OP = register(Op(
    GETITEM, infer=_getitem_infer, impl=_getitem, emit=lambda args, attrs: f"{args[0]}[{attrs['index']}]",
))
