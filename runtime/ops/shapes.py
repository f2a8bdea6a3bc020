"""Shape and dtype rules shared by the ops, with None for unknown sizes.

Dtypes always come from NumPy itself: the call is run on tiny arrays of the
input dtypes (`probe`), so promotion, NEP 50 weak scalars and each function's
own dtype rules match exactly. Shapes follow NumPy's rules written out over
possibly-unknown dims (`broadcast`, `reduced`), or, for the long tail of
functions, by running the call twice with different sizes for the unknown dims
(`probe_type`): the output dims that move are unknown.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.ir.types import Shape, TensorType
from runtime.ops.calls import staging_error

__all__ = [
    "broadcast", "normalize_axes", "reduced", "probe", "probe_type", "dummy", "known_product",
    "reshaped", "matmul_shape", "shape_of", "elementwise_type", "require_concrete",
    "signature_of", "bind_arguments",
]

# Arguments whose value decides a result's shape: they must be Python values, not tensors.
SHAPE_ARGUMENTS = frozenset({
    "axis", "axes", "axis1", "axis2", "keepdims", "source", "destination", "reps", "pad_width",
    "num", "k", "offset", "n", "new_shape", "shape", "newshape",
})

_PY_NUMBERS = frozenset({bool, int, float, complex})


def broadcast(*shapes: Shape, what: str = "operands") -> Shape:
    """NumPy broadcasting; None vs n is n (n != 1), None vs 1 or None is None."""
    if any(s is None for s in shapes):
        return None
    shaped = [s for s in shapes if s]  # () broadcasts to anything: drop it
    if not shaped:
        return ()
    if all(s == shaped[0] for s in shaped):
        return tuple(shaped[0])  # equal shapes broadcast to themselves
    rank = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    out: list[int | None] = []
    for dims in zip(*padded):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            shown = " ".join(TensorType(np.float64, s).shape_str() for s in shapes)
            raise staging_error(f"{what} could not be broadcast together with shapes {shown}")
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def normalize_axes(axis: Any, rank: int) -> tuple[int, ...]:
    """Axes as non-negative ints (NumPy's AxisError, as a StagingError, when out of range)."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise staging_error(f"axis {a} is out of bounds for a tensor of rank {rank}")
        out.append(a % rank if rank else 0)
    if len(set(out)) != len(out):
        raise staging_error(f"repeated axis in {axis!r}")
    return tuple(out)


def reduced(shape: Shape, axis: Any, keepdims: bool) -> Shape:
    """The shape after reducing `axis` (None: all axes)."""
    if shape is None:
        return () if axis is None and not keepdims else None
    if shape == () and isinstance(axis, int) and axis in (0, -1):
        return ()  # NumPy's ufunc reductions accept axis 0 of a 0-d array
    axes = tuple(range(len(shape))) if axis is None else normalize_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def known_product(shape: Sequence[int | None]) -> int | None:
    total = 1
    for d in shape:
        if d is None:
            return None
        total *= d
    return total


def reshaped(shape: Shape, new_shape: Sequence[int | None]) -> Shape:
    """The shape `reshape` gives; -1 is solved when the other sizes are known."""
    new_shape = tuple(new_shape)
    if sum(1 for d in new_shape if d == -1) > 1:
        raise staging_error(f"can only specify one unknown dimension (-1) in reshape {new_shape}")
    total = None if shape is None else known_product(shape)
    rest = known_product([d for d in new_shape if d != -1])
    if -1 not in new_shape:
        if total is not None and rest is not None and total != rest:
            raise staging_error(f"cannot reshape a tensor of shape {shape} into shape {new_shape}")
        return new_shape
    solved = None
    if total is not None and rest is not None:
        if rest == 0 or total % rest:
            raise staging_error(f"cannot reshape a tensor of shape {shape} into shape {new_shape}")
        solved = total // rest
    return tuple(solved if d == -1 else d for d in new_shape)


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
    types = [t for t in _flat(args) + _flat(kwargs.values()) if isinstance(t, TensorType)]
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


def _flat(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, (tuple, list)):
            out += _flat(item)
        elif isinstance(item, dict):
            out += _flat(item.values())
        else:
            out.append(item)
    return out


def matmul_shape(a: TensorType, b: TensorType) -> Shape:
    """`a @ b`: batch dims broadcast, the contracted sizes must agree."""
    if a.shape is None or b.shape is None:
        return None
    if not a.shape or not b.shape:
        raise staging_error("matmul: a scalar operand is not allowed; use * instead")
    sa = (1,) + a.shape if len(a.shape) == 1 else a.shape
    sb = b.shape + (1,) if len(b.shape) == 1 else b.shape
    if sa[-1] is not None and sb[-2] is not None and sa[-1] != sb[-2]:
        raise staging_error(f"matmul: contracted sizes differ: {a.shape_str()} @ {b.shape_str()}")
    batch = broadcast(sa[:-2], sb[:-2])
    assert batch is not None
    out = batch + ((sa[-2],) if len(a.shape) > 1 else ()) + ((sb[-1],) if len(b.shape) > 1 else ())
    return out


def shape_of(item: Any) -> Shape:
    """Shape of a rule argument: a TensorType's, or NumPy's for a literal (nested tuples too)."""
    if isinstance(item, TensorType):
        return item.shape
    if type(item) in _PY_NUMBERS:
        return ()
    if isinstance(item, tuple) and any(isinstance(v, (TensorType, tuple)) for v in item):
        inner = broadcast(*(shape_of(v) for v in item))
        return None if inner is None else (len(item),) + inner
    return np.shape(item)


def _empty(item: Any) -> Any:
    """A zero-size stand-in with the item's dtype (Python scalars stay, so they stay weak)."""
    if isinstance(item, TensorType):
        return np.empty((0,), item.dtype)
    if isinstance(item, tuple):
        if any(isinstance(v, TensorType) for v in _flat(item)):
            dtypes = [v.dtype if isinstance(v, TensorType) else np.asarray(v).dtype for v in _flat(item)]
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


@functools.cache
def signature_of(fn: Callable) -> inspect.Signature:
    """`inspect.signature`, cached: rules bind every staged call's arguments with it."""
    return inspect.signature(fn)


_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD


@functools.cache
def _plain_parameters(fn: Callable) -> tuple[int, tuple[str, ...], frozenset[str]] | None:
    """How many of `fn`'s parameters are positional, all their names and the required ones,
    when each is positional-or-keyword or keyword-only (no *args, **kwargs, positional-only)."""
    try:
        parameters = list(signature_of(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    kinds = [p.kind for p in parameters]
    if any(kind not in (_POSITIONAL, inspect.Parameter.KEYWORD_ONLY) for kind in kinds):
        return None
    positional = kinds.count(_POSITIONAL)
    if kinds[:positional] != [_POSITIONAL] * positional:
        return None
    required = frozenset(p.name for p in parameters if p.default is inspect.Parameter.empty)
    return positional, tuple(p.name for p in parameters), required


def bind_arguments(fn: Callable, args: tuple, kwargs: dict) -> dict[str, Any]:
    """`signature_of(fn).bind(*args, **kwargs).arguments`, by name in signature order.

    Shape rules bind every staged call, and inspect's general binder costs
    tens of µs on a NumPy signature such as np.sum's seven parameters. Most
    NumPy functions take plain parameters only, which bind by zipping names
    with the positional arguments and adding the keywords; anything else (or
    a call inspect would reject, so the same TypeError is raised) goes to inspect.
    """
    plain = _plain_parameters(fn)
    if plain is not None and len(args) <= plain[0]:
        _, names, required = plain
        bound = dict(zip(names, args))
        if kwargs:
            if any(key in bound or key not in names for key in kwargs):
                return signature_of(fn).bind(*args, **kwargs).arguments
            bound.update(kwargs)
            bound = {name: bound[name] for name in names if name in bound}
        if required.issubset(bound):
            return bound
    return signature_of(fn).bind(*args, **kwargs).arguments


def require_concrete(fn: Callable, args: tuple, kwargs: dict, names: frozenset[str] = SHAPE_ARGUMENTS) -> None:
    """A StagingError when a shape-deciding argument (axis=, reps=, num=...) is a tensor."""
    try:
        bound = bind_arguments(fn, args, kwargs)
    except (TypeError, ValueError):
        return
    for name, value in bound.items():
        if name in names and any(isinstance(v, TensorType) for v in _flat([value])):
            raise staging_error(
                f"np.{getattr(fn, '__name__', 'function')}: the {name}= argument decides the result's "
                f"shape, so it must be a Python value, not a tensor"
            )
