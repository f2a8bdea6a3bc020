"""ag.random.Generator: random numbers that are drawn anew at every run of a graph.

NumPy's generators drawn from while a Function traces give numbers that
become constants of the graph. This Generator keeps its state in an
`ag.Variable` (the number of draws made so far) and stages each draw as an op
of (key, draw number) followed by an increment of the Variable, so each run,
and each iteration of a staged loop, draws new numbers. Outside a Function
it computes the same draws at once, on NumPy values: with one seed, the
sequence of draws is the same inside and outside, on the NumPy backend.

    rng = ag.random.Generator(seed=0)

    @ag.function
    def noisy(x):
        return x + rng.normal(size=x.shape, scale=0.1)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ops.random import draw_integers, draw_normal, draw_permutation, draw_uniform
from runtime.tracing.leaves import as_tensor, where
from runtime.tracing.record import record
from runtime.tracing.staged import stages_as_tensor
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import current_graph
from runtime.tracing.variables import Variable

__all__ = ["Generator"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _size(size: Any, method: str) -> tuple[int, ...] | None:
    """`size` as a tuple of Python ints (it decides the result's shape, so it cannot be staged)."""
    if size is None:
        return None
    if stages_as_tensor(size) or (isinstance(size, (tuple, list)) and any(stages_as_tensor(d) for d in size)):
        raise StagingError(
            f"{where()}Generator.{method}: size must be Python ints (it decides the result's shape), "
            f"not a tensor; use a shape known while tracing, such as x.shape of a fully defined x"
        )
    if isinstance(size, (tuple, list)):
        if any(d is None for d in size):
            raise StagingError(f"{where()}Generator.{method}: size {tuple(size)} has an unknown dimension (None)")
        return tuple(operator.index(d) for d in size)
    return (operator.index(size),)


def _float_dtype(dtype: Any, method: str) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype not in _FLOATS:
        raise TypeError(f"Generator.{method}: dtype must be float32 or float64, not {dtype.name}")
    return dtype


class Generator:
    """A seeded random generator whose state is an `ag.Variable`; NumPy-style methods.

    `seed` is anything `np.random.SeedSequence` takes (None: fresh entropy).
    The state Variable is `state`; `Generator.reset(seed)` starts the sequence over.
    """

    def __init__(self, seed: Any = None) -> None:
        self._key = np.random.SeedSequence(seed).generate_state(2, np.uint64)
        self.state = Variable(np.int64(0), name="rng_draws")

    def reset(self, seed: Any = None) -> None:
        """Start again from `seed`'s first draw (outside a Function)."""
        self._key = np.random.SeedSequence(seed).generate_state(2, np.uint64)
        self.state.assign(np.int64(0))

    def _draw(self, op: str, params: tuple, attrs: dict) -> Any:
        """The draw `op` with the next draw number; the state moves on by one."""
        if current_graph() is None:
            count = self.state.numpy()
            self.state.assign(count + 1)
            return _EAGER[op](self._key, count, *params, **attrs)
        count = self.state.read_value()
        self.state.assign(count + 1)
        return record(op, (self._key, count, *params), attrs)

    def normal(self, size: Any = (), loc: Any = 0.0, scale: Any = 1.0, dtype: Any = np.float64) -> Any:
        """Normal draws of shape `size`, mean `loc`, standard deviation `scale`."""
        dtype = _float_dtype(dtype, "normal")
        z = self._draw("random_normal", (), {"size": _size(size, "normal") or (), "dtype": dtype})
        return _affine(z, scale, loc, dtype)

    def uniform(self, size: Any = (), low: Any = 0.0, high: Any = 1.0, dtype: Any = np.float64) -> Any:
        """Uniform draws in [low, high) of shape `size`."""
        dtype = _float_dtype(dtype, "uniform")
        u = self._draw("random_uniform", (), {"size": _size(size, "uniform") or (), "dtype": dtype})
        return _affine(u, high - low, low, dtype)

    def integers(self, low: Any, high: Any = None, size: Any = (), dtype: Any = np.int64) -> Any:
        """Integers in [low, high) (or [0, low) without `high`); `size=None` broadcasts low and high."""
        dtype = np.dtype(dtype)
        if dtype.kind not in "iub":
            raise TypeError(f"Generator.integers: dtype must be an integer dtype, not {dtype.name}")
        if high is None:
            low, high = 0, low
        low, high = _operand(low, dtype), _operand(high, dtype)
        return self._draw("random_integers", (low, high), {"size": _size(size, "integers"), "dtype": dtype})

    def permutation(self, n: Any) -> Any:
        """The integers 0..n-1 shuffled, or (given an array) its rows shuffled."""
        n = as_tensor(n)
        if isinstance(n, Tensor) and n.ndim == 0 and n.dtype.kind not in "iu":
            raise TypeError(f"Generator.permutation: n must be an integer, not {n.dtype.name}")
        value = n if isinstance(n, Tensor) else np.asarray(n)
        if value.ndim == 0 and value.dtype.kind not in "iu":
            raise TypeError(f"Generator.permutation: n must be an integer or an array, not {value.dtype.name}")
        attrs = {"length": int(value)} if not isinstance(value, Tensor) and value.ndim == 0 else {}
        return self._draw("random_permutation", (value,), attrs)

    def __repr__(self) -> str:
        return f"<ag.random.Generator, {self.state.numpy() if current_graph() is None else '?'} draws made>"


def _operand(value: Any, dtype: np.dtype) -> Any:
    """A bound of `integers`: a Tensor as it is, anything else an array (NumPy checks its range)."""
    value = as_tensor(value)
    return value if isinstance(value, Tensor) else np.asarray(value)


def _affine(draw: Any, scale: Any, shift: Any, dtype: np.dtype) -> Any:
    """`draw * scale + shift` in `dtype` (skipping the identity, as NumPy's own normal(0, 1) does)."""
    if not (_is(scale, 1.0) and _is(shift, 0.0)):
        draw = draw * scale + shift
    if isinstance(draw, Tensor):
        return draw if draw.dtype == dtype else draw.astype(dtype)
    return np.asarray(draw).astype(dtype, copy=False)[()] if np.ndim(draw) == 0 else np.asarray(draw, dtype)


def _is(value: Any, number: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == number


_EAGER = {
    "random_normal": draw_normal, "random_uniform": draw_uniform,
    "random_integers": draw_integers,
    "random_permutation": draw_permutation,
}
