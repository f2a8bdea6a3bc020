"""Random draws as pure ops of (key, draw number): "random_normal", "random_uniform", ...

A draw is a function of its inputs: NumPy's Philox bit generator, a
counter-based one, seeded with the generator's 128-bit `key` and a counter
whose high words hold the draw number `count`. Each draw number starts its
own stream 2**128 blocks away from the next, so draws never overlap, and the
same (key, count) always gives the same numbers: `ag.random.Generator` keeps
`count` in a Variable and adds one per draw, which makes every run of a graph
draw anew. Being pure, the ops may be removed when unused but are never
folded (their count input is a Variable read) nor merged (each draw reads its
own count).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.registry import Op, register

__all__ = ["bit_generator", "draw_normal", "draw_uniform", "draw_integers", "draw_permutation", "RANDOM_OPS"]


def bit_generator(key: Any, count: Any) -> np.random.Generator:
    """NumPy's Generator over the stream of draw number `count` under `key`."""
    counter = np.array([0, 0, np.uint64(np.int64(count)), 0], dtype=np.uint64)
    return np.random.Generator(np.random.Philox(key=np.asarray(key, np.uint64), counter=counter))


def draw_normal(key: Any, count: Any, size: tuple, dtype: np.dtype) -> np.ndarray:
    return np.asarray(bit_generator(key, count).standard_normal(size, dtype=dtype))


def draw_uniform(key: Any, count: Any, size: tuple, dtype: np.dtype) -> np.ndarray:
    return np.asarray(bit_generator(key, count).random(size, dtype=dtype))


def draw_integers(key: Any, count: Any, low: Any, high: Any, size: tuple | None, dtype: np.dtype) -> np.ndarray:
    return np.asarray(bit_generator(key, count).integers(low, high, size=size, dtype=dtype))


def draw_permutation(key: Any, count: Any, x: Any, length: int | None = None) -> np.ndarray:
    return np.asarray(bit_generator(key, count).permutation(int(x) if np.ndim(x) == 0 else x))


def _sized(types: Sequence[TensorType], attrs: Mapping[str, Any]) -> TensorType:
    return TensorType(np.dtype(attrs["dtype"]), tuple(attrs["size"]))


def _integers_type(types: Sequence[TensorType], attrs: Mapping[str, Any]) -> TensorType:
    size = attrs["size"]
    if size is None:  # NumPy broadcasts low and high
        shapes = [t.shape for t in types[2:]]
        if any(s is None for s in shapes):
            return TensorType(np.dtype(attrs["dtype"]), None)
        return TensorType(np.dtype(attrs["dtype"]), _broadcast(shapes))
    return TensorType(np.dtype(attrs["dtype"]), tuple(size))


def _broadcast(shapes: list) -> tuple:
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for dims in zip(*[(1,) * (rank - len(s)) + tuple(s) for s in shapes]):
        known = {d for d in dims if d != 1}
        out.append(None if None in known else (known.pop() if known else 1))
    return tuple(out)


def _permutation_type(types: Sequence[TensorType], attrs: Mapping[str, Any]) -> TensorType:
    x = types[2]
    if x.shape == ():  # permutation(n): the integers 0..n-1 shuffled
        return TensorType(np.dtype(np.int64), (attrs.get("length"),))
    return x


RANDOM_OPS = {
    "random_normal": register(Op("random_normal", _sized, draw_normal)),
    "random_uniform": register(Op("random_uniform", _sized, draw_uniform)),
    "random_integers": register(Op("random_integers", _integers_type, draw_integers)),
    "random_permutation": register(Op("random_permutation", _permutation_type, draw_permutation)),
}
