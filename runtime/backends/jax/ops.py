"""Which jax.numpy callable computes each registered op, and how its dtypes are kept.

Ops made by `runtime.ops.define` remember their NumPy callable and its path
("np.tanh", "np.linalg.inv", "np.add.reduce"); the same path under
`jax.numpy` is the counterpart for most of them. The rest are mapped here
by name, or refused: ops whose output shape depends on the data
(`np.nonzero`, `np.unique`, ...) cannot be compiled by XLA, which needs
every shape before it runs.

NumPy's dtype rules are kept by the caller (`lower`): a binary ufunc's
tensor operands are cast to NumPy's common dtype first, and every result is
cast to the dtype the graph inferred for its node.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ops.decompositions import DECOMPOSITIONS
from runtime.ops.registry import Op

__all__ = ["counterpart", "DATA_DEPENDENT", "COMMON_DTYPE_EXEMPT"]

# op name -> what to write instead (the fix of the StagingError)
DATA_DEPENDENT = {
    "nonzero": "np.where(mask, x, fill) keeps the shape; np.nonzero's length depends on the data",
    "argwhere": "np.where(mask, x, fill) keeps the shape; np.argwhere's length depends on the data",
    "flatnonzero": "np.where(mask, x, fill) keeps the shape; np.flatnonzero's length depends on the data",
    "unique": "np.sort keeps the shape; np.unique's length depends on the data",
    "unique_values": "np.sort keeps the shape; np.unique_values's length depends on the data",
    "bincount": "pass minlength= a constant at least as large as the largest value, or count with "
                "np.sum(x[:, None] == np.arange(n), axis=0)",
    "staged_range": "give the range Python-int bounds (known while tracing)",
    "repeat": "give np.repeat a Python int (or a constant) number of repeats",
}

# binary ufuncs whose operands NumPy does not bring to one dtype
COMMON_DTYPE_EXEMPT = frozenset({"ldexp", "left_shift", "right_shift"})

_OUTPUT = re.compile(r"^(\w+)_(\d)$")


def counterpart(op: Op, jnp: Any) -> Callable[..., Any] | None:
    """The jax.numpy callable for `op` (None when there is none)."""
    if op.name in _REFUSED:
        return None
    special = _SPECIAL.get(op.name)
    if special is not None:
        return special(jnp)
    path = op.path
    if path is None or not path.startswith("np."):
        return None
    method = _METHOD.match(path)
    if method is not None:
        native = getattr(getattr(jnp, method.group(1), None), method.group(2), None)
        base = getattr(jnp, method.group(1), None)
        if native is None and base is not None:
            return _ufunc_method(base, method.group(2), jnp)
    target: Any = jnp
    for part in path[3:].split("."):
        found = getattr(target, part, None)
        if found is None:
            return _one_output(part, target)
        target = found
    if not callable(target):
        return None
    return _indexed(target) if op.name in _MULTI_OUTPUT else target


_MULTI_OUTPUT = frozenset(f"linalg_{name}" for name in DECOMPOSITIONS)


def _indexed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decomposition's op (np.linalg.eigh, svd, qr, ...): one result of several, by its `index`."""

    def one(*args: Any, index: int | None = None, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        return result if index is None else result[index]

    return one


# NumPy folds these in an order of its own on contiguous 1-d input (np.power.reduce([2., 3., 2.])
# is 4.0): no fold in program order gives its answers
_REFUSED = frozenset(
    f"{name}_{method}" for name in ("power", "float_power", "arctan2", "ldexp") for method in ("reduce", "accumulate")
)
_METHOD = re.compile(r"^np\.(\w+)\.(reduce|accumulate|outer)$")


def _ufunc_method(fn: Callable[..., Any], method: str, jnp: Any) -> Callable[..., Any]:
    """`np.<ufunc>.reduce/accumulate/outer` for a jax.numpy function that is no ufunc object.

    reduce and accumulate fold in order, from the first element, as NumPy does (a tree
    reduction would change the answer of a non-associative op such as power or divide).
    """
    from jax import lax

    if method == "outer":
        def outer(a: Any, b: Any) -> Any:
            a, b = jnp.asarray(a), jnp.asarray(b)
            return fn(jnp.reshape(a, a.shape + (1,) * b.ndim), b)

        return outer

    def fold(a: Any, axis: Any = 0, dtype: Any = None, keepdims: bool = False) -> Any:
        a = jnp.asarray(a) if dtype is None else jnp.asarray(a).astype(dtype)
        if axis is None:
            a, axis = jnp.ravel(a), 0
        moved = jnp.moveaxis(a, axis, 0)
        moved = moved.astype(fn(moved[:1], moved[:1]).dtype)  # the dtype NumPy's loop computes in
        if moved.shape[0] == 0:
            raise ValueError(f"np.{fn.__name__}.{method} of an empty axis has no identity to start from")

        def step(carry: Any, row: Any) -> tuple:
            new = fn(carry, row).astype(carry.dtype)
            return new, new

        last, rows = lax.scan(step, moved[0], moved[1:])
        if method == "reduce":
            return jnp.expand_dims(last, axis) if keepdims else last
        return jnp.moveaxis(jnp.concatenate([moved[:1], rows]), 0, axis)

    return fold


def _one_output(part: str, module: Any) -> Callable[..., Any] | None:
    """`divmod_0`: output 0 of the multi-output function `divmod`."""
    match = _OUTPUT.match(part)
    base = getattr(module, match.group(1), None) if match else None
    if base is None:
        return None
    index = int(match.group(2))
    return lambda *args, **kwargs: base(*args, **kwargs)[index]


def _cast(jnp: Any) -> Callable[..., Any]:
    """`astype`; a float that does not fit a signed int type (NaN, inf, too large) becomes the
    type's minimum, what NumPy gives on x86-64, where XLA would saturate."""

    def cast(a: Any, dtype: Any) -> Any:
        a = jnp.asarray(a)
        target = np.dtype(dtype)
        if a.dtype.kind != "f" or target.kind != "i":
            return a.astype(target)
        info = np.iinfo(target)
        fits = (a >= float(info.min)) & (a < -float(info.min))  # NaN fails both tests
        return jnp.where(fits, a.astype(target), jnp.asarray(info.min, target))

    return cast


def _integer_safe(name: str, zero_result: Callable[[Any, Any], Any] | None = None) -> Callable[[Any], Callable]:
    """`name` whose integer division by zero gives 0, as NumPy's does (XLA's gives -1 or
    the dividend); floats are left to IEEE rules."""

    def make(jnp: Any) -> Callable[..., Any]:
        fn = getattr(jnp, name)

        def call(a: Any, b: Any, **kwargs: Any) -> Any:
            if isinstance(b, (int, float, np.ndarray, np.generic)) and np.all(np.asarray(b) != 0):
                return fn(a, b, **kwargs)  # a constant divisor that is never zero
            a, b = jnp.asarray(a), jnp.asarray(b)
            if np.dtype(jnp.result_type(a, b)).kind not in "iu":
                return fn(a, b, **kwargs)
            zero = b == 0
            result = fn(a, jnp.where(zero, jnp.ones_like(b), b), **kwargs)
            return jnp.where(zero, jnp.zeros_like(result), result)

        return call

    return make


def _divmod(index: int) -> Callable[[Any], Callable]:
    def make(jnp: Any) -> Callable[..., Any]:
        ops = (_integer_safe("floor_divide")(jnp), _integer_safe("remainder")(jnp))
        return lambda a, b, **kwargs: ops[index](a, b, **kwargs)

    return make


def _shape(jnp: Any) -> Callable[..., Any]:
    return lambda a: np.asarray(np.shape(a), np.int64)  # static: shapes are known while lowering


def _size(jnp: Any) -> Callable[..., Any]:
    return lambda a: np.int64(np.size(a)) if not hasattr(a, "size") else np.int64(a.size)


def _ndim(jnp: Any) -> Callable[..., Any]:
    return lambda a: np.int64(np.ndim(a))


def _broadcast_arrays(jnp: Any) -> Callable[..., Any]:
    return lambda *arrays, index: jnp.broadcast_arrays(*arrays)[index]


_SPECIAL: dict[str, Callable[[Any], Callable[..., Any]]] = {
    "cast": _cast, "shape": _shape, "size": _size, "ndim": _ndim, "broadcast_arrays": _broadcast_arrays,
    "floor_divide": _integer_safe("floor_divide"), "remainder": _integer_safe("remainder"),
    "fmod": _integer_safe("fmod"), "divmod_0": _divmod(0), "divmod_1": _divmod(1),
}
