"""ag.range: a range that a `for` loop inside a trace turns into one staged loop.

Outside a trace `ag.range` is Python's `range` for Python ints and
`np.arange` otherwise. Inside a trace it is a `StagedRange`: a for loop over
it is one staged loop (however many values it has), and `np.stack(r)` gives
the values as one staged `range` op (NumPy's `np.asarray` cannot return a
staged value, so it is an error that says to use np.stack).

    for i in ag.range(1, n + 1):     # n: a Tensor -> one while loop, i staged
        ...
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.operators.staged_iterables import StagedIterable, iterate_for_numpy
from runtime.ops.calls import unknown_dimension
from runtime.tracing.frontend import get_frontend

__all__ = ["range_", "StagedRange"]


def _is_python_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def range_(start: Any, limit: Any = None, delta: Any = 1) -> Any:
    """ag.range(limit) / ag.range(start, limit, delta), like Python's range."""
    if limit is None:
        start, limit = 0, start
    frontend = get_frontend(start)
    values = (start, limit, delta)
    if frontend.is_tracing() or any(frontend.is_staged(v) for v in values):
        if any(v is None for v in values):
            raise unknown_dimension(f"ag.range({', '.join(map(repr, values))})")
        return StagedRange(start, limit, delta)
    if all(_is_python_int(v) for v in values):
        return range(start, limit, delta)
    return np.arange(start, limit, delta)


def _dtype_of(value: Any) -> Any:
    frontend = get_frontend(value)
    return frontend.type_of(value).dtype if frontend.is_staged(value) else value


class StagedRange(StagedIterable):
    """start, start + delta, ... up to limit (exclusive), with staged bounds allowed."""

    def __init__(self, start: Any, limit: Any, delta: Any) -> None:
        self.start, self.limit, self.delta = start, limit, delta
        self.dtype = np.result_type(*(_dtype_of(v) for v in (start, limit, delta)))

    def __repr__(self) -> str:
        return f"ag.range({self.start}, {self.limit}, {self.delta})"

    def staged_length(self) -> Any:
        start, limit, delta = self.start, self.limit, self.delta
        frontend = get_frontend(start)
        if not any(frontend.is_staged(v) for v in (start, limit, delta)):
            return len(range(operator.index(start), operator.index(limit), operator.index(delta))) \
                if all(_is_python_int(v) for v in (start, limit, delta)) \
                else int(np.arange(start, limit, delta).shape[0])
        if np.issubdtype(self.dtype, np.integer) and _is_python_int(delta) and delta == 1:
            # -((start - limit) // 1) is limit - start bit for bit (two's complement), and limit itself
            # from 0: the same values and dtype in fewer ops (runtime.passes.simplify knows the rules too)
            count = limit if _is_python_int(start) and start == 0 else limit - start
        elif np.issubdtype(self.dtype, np.integer):
            count = -((start - limit) // delta)
        else:
            count = np.ceil((limit - start) / delta).astype(np.int64)
        return np.maximum(count, 0)

    def staged_item(self, index: Any) -> Any:
        value = index
        if not (_is_python_int(self.delta) and self.delta == 1):
            value = value * self.delta
        if not (_is_python_int(self.start) and self.start == 0):
            value = value + self.start
        if value.dtype != self.dtype:
            value = value.astype(self.dtype)
        return value

    def as_tensor(self) -> Any:
        """The values as one staged `range` op."""
        return get_frontend(self.limit).arange(self.start, self.limit, self.delta, self.dtype)

    def __getitem__(self, index: Any) -> Any:
        return self.staged_item(index) if get_frontend(index).is_staged(index) else \
            self.staged_item(get_frontend().constant(np.int64(index)))

    def __iter__(self):
        return iterate_for_numpy(self)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.stack and args and args[0] is self and not kwargs.get("axis"):
            return self.as_tensor()
        return NotImplemented

    def __array__(self, dtype=None, copy=None):
        raise StagingError(
            f"np.asarray({self!r}) cannot give a staged value; use np.stack(r) to get the "
            f"range as a Tensor inside the graph"
        )
