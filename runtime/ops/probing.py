"""Dtypes and shapes from NumPy itself: run the call on tiny arrays of the input types.

So promotion, NEP 50 weak scalars and each function's own dtype rules match
exactly (`probe`). For the long tail of functions, the shape comes from
running the call twice with different sizes for the unknown dims
(`probe_type`): the output dims that move are unknown.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ir.types import TensorType
from runtime.ops.calls import staging_error
from runtime.ops.shapes import broadcast, flat_items, shape_of

__all__ = ["probe", "probe_type", "dummy", "elementwise_type"]




def dummy(t: TensorType, size: int | None = None, fill: str = "zeros") -> np.ndarray:
    """A small array of `t`'s dtype; unknown dims become `size` (1 by default).

    `fill="eye"` puts ones on the diagonal of the last two dims, so linear
    algebra probes (inv, solve) meet invertible matrices.
    """
    shape = (1,) if t.shape is None else t.shape
    array = np.zeros(tuple((size or 1) if d is None else d for d in shape), t.dtype)
    if fill == "eye" and array.ndim >= 2:
        n = min(array.shape[-2:])
        array[..., range(n), range(n)] = 1
    elif fill == "eye":
        array[...] = 1
    return array


def _quiet_call(fn: Callable, args: tuple, kwargs: dict) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _substitute(item: Any, make: Callable[[TensorType], Any]) -> Any:
    if isinstance(item, TensorType):
        return make(item)
    if isinstance(item, tuple):
        return tuple(_substitute(v, make) for v in item)
    if isinstance(item, slice):
        return slice(*(_substitute(v, make) for v in (item.start, item.stop, item.step)))
    return item


def probe(
    fn: Callable, args: tuple, kwargs: dict, size: int | None = None, small: bool = False, fill: str = "zeros"
) -> Any:
    """Run `fn` with every TensorType replaced by a zero array (its shape, or 1-sized dims)."""

    def make(t: TensorType, fill: str) -> np.ndarray:
        if small:
            return dummy(TensorType(t.dtype, (1,) * (t.rank if t.rank is not None else 1)), fill=fill)
        return dummy(t, size, fill)

    def call(fill: str) -> Any:
        substituted = {k: _substitute(v, lambda t: make(t, fill)) for k, v in kwargs.items()}
        return _quiet_call(fn, _substitute(args, lambda t: make(t, fill)), substituted)

    try:
        try:
            return call(fill)
        except ValueError:
            if fill == "eye":
                raise
            # zeros can be invalid values (a singular matrix, log-spacing from 0): try identities
            return call("eye")
    except (TypeError, ValueError, IndexError) as exc:
        name = getattr(fn, "__name__", "op")
        if isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").startswith("numpy"):
            name = f"np.{name}"
        raise staging_error(f"{name}: {exc}") from exc


def _type_of_result(result: Any) -> TensorType:
    array = np.asarray(result)
    return TensorType(array.dtype, array.shape)


def probe_type(fn: Callable, args: tuple, kwargs: dict, fill: str = "zeros") -> TensorType:
    """Type of `fn(*args)` by running it; dims that follow an unknown input dim are None.

    Unknown dims are tried at sizes below and above every known size, so a
    result dim such as min(n, 4) is seen to move.
    """
    types = [t for t in flat_items(args) + flat_items(kwargs.values()) if isinstance(t, TensorType)]
    if any(t.shape is None for t in types):
        return TensorType(np.asarray(probe(fn, args, kwargs, small=True, fill=fill)).dtype, None)
    if all(t.is_fully_defined for t in types):
        return _type_of_result(probe(fn, args, kwargs, fill=fill))
    known = sorted({d for t in types for d in t.shape if d is not None} | {1})
    results = []
    for size in (2, 3, known[-1] + 5, known[-1] + 6):
        try:
            results.append(_type_of_result(probe(fn, args, kwargs, size=size, fill=fill)))
        except ValueError:
            continue  # a size the call rejects (kth out of bounds, mismatched dims)
    if len(results) < 2:
        # The unknown dims must agree with some known size: any size that runs gives the rank.
        for size in known:
            try:
                result = _type_of_result(probe(fn, args, kwargs, size=size, fill=fill))
            except ValueError:
                continue
            return TensorType(result.dtype, (None,) * len(result.shape))
        probe(fn, args, kwargs, size=known[-1] + 5, fill=fill)  # raises the StagingError
    if len({len(r.shape) for r in results}) != 1:
        return TensorType(results[0].dtype, None)
    dims = zip(*(r.shape for r in results))
    return TensorType(results[0].dtype, tuple(d[0] if len(set(d)) == 1 else None for d in dims))


def _empty(item: Any) -> Any:
    """A zero-size stand-in with the item's dtype (Python scalars stay, so they stay weak)."""
    if isinstance(item, TensorType):
        return np.empty((0,), item.dtype)
    if isinstance(item, tuple):
        if any(isinstance(v, TensorType) for v in flat_items(item)):
            dtypes = [v.dtype if isinstance(v, TensorType) else np.asarray(v).dtype for v in flat_items(item)]
            return np.empty((0,), np.result_type(*dtypes))
        return np.empty((0,), np.asarray(item).dtype)
    return item


def elementwise_type(fn: Callable, args: tuple, kwargs: dict, output: int | None = None) -> TensorType:
    """Type of an elementwise call: arguments (and `where=`) broadcast; dtype from `fn` on empties."""
    operands = [a for a in args if a is not None]
    operands += [v for k, v in kwargs.items() if isinstance(v, TensorType) or k == "where"]
    shape = broadcast(*(shape_of(a) for a in operands))
    return TensorType(_elementwise_dtype(fn, args, kwargs, output), shape)


class _Empty:
    """Stands for a zero-size array of `dtype` in a key of `_probed_dtype`."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype

    def __eq__(self, other: object) -> bool:
        return type(other) is _Empty and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(self.dtype)


def _key_part(item: Any) -> Any:
    """What the dtype of an elementwise result depends on: an empty's dtype, or the value and its type."""
    if type(item) is TensorType:
        return _Empty(item.dtype)  # what np.empty((0,), item.dtype) has
    if isinstance(item, (TensorType, tuple)):
        return _Empty(_empty(item).dtype)
    return (type(item), item)


def _elementwise_dtype(fn: Callable, args: tuple, kwargs: dict, output: int | None) -> np.dtype:
    """The dtype `fn` gives on empties of the arguments' dtypes.

    It depends only on those dtypes and on the other arguments' types and
    values (a weak Python int may overflow an int8), so the answer is
    remembered per such key: traces ask the same few questions again and again.
    Errors are never remembered: each raises where it happens.
    """
    key = (fn, output, tuple(_key_part(a) for a in args), tuple((k, _key_part(v)) for k, v in kwargs.items()))
    try:
        hash(key)
    except TypeError:  # an unhashable argument (a list): ask NumPy every time
        return _probe_dtype(key)
    return _probed_dtype(key)


def _probe_dtype(key: tuple) -> np.dtype:
    fn, output, args, kwargs = key
    value = probe(fn, tuple(_rebuild(a) for a in args), {k: _rebuild(v) for k, v in kwargs})
    if output is not None:
        value = value[output]
    return np.asarray(value).dtype


_probed_dtype = functools.lru_cache(maxsize=4096)(_probe_dtype)


def _rebuild(part: Any) -> Any:
    return np.empty((0,), part.dtype) if type(part) is _Empty else part[1]
