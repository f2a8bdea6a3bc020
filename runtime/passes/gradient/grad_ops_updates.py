"""Gradient helper ops of TensorArray gather/scatter/concat/split and of item assignment.

A TensorArray's gradient is a list of element gradients (None: zero, see
`grad_ops`); these move rows between such lists and arrays:

    ta.gather(idx)        ->  grad_list_put_rows([], idx, g)        # row k of g to element idx[k]
    ta.scatter(idx, v)    ->  grad_list_take_rows(g, idx, v)        # v's gradient: the elements' gradients
    ta.concat()           ->  grad_list_split_like(g, ta)           # g cut at the elements' lengths
    TensorArray.split(v)  ->  grad_list_concat(g, v, lengths)

`setitem_value_grad` is the gradient of the value of `x[key] = value` for a
key with integer arrays: where the key repeats an element, only the value
NumPy wrote last reaches the result, so only it gets the gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.errors import InvalidArgumentError
from runtime.passes.gradient.grad_ops import GRAD_OPS, _handle, _like, _register, fill_key
from runtime.passes.gradient.grad_ops import sum_to as _sum_to

__all__ = ["UPDATE_GRAD_OPS"]


def _rows(indices: Any) -> list[int]:
    return [int(i) for i in np.asarray(indices).reshape(-1)]


def grad_list_put_rows(g: list, indices: Any, rows: Any) -> list:
    out = list(g)
    for k, i in enumerate(_rows(indices)):
        out += [None] * max(0, i + 1 - len(out))
        row = np.asarray(rows)[k]
        out[i] = row if out[i] is None else out[i] + row
    return out


def grad_list_take_rows(g: list, indices: Any, like: Any) -> np.ndarray:
    like = np.asarray(like)
    out = np.zeros_like(like)
    for k, i in enumerate(_rows(indices)):
        if 0 <= i < len(g) and g[i] is not None:
            out[k] = g[i]
    return out


def grad_list_drop_rows(g: list, indices: Any) -> list:
    out = list(g)
    for i in _rows(indices):
        if 0 <= i < len(out):
            out[i] = None
    return out


def grad_list_split_like(g: Any, items: list) -> list:
    """`g` (the gradient of a concat) cut into pieces as long as the elements were."""
    lengths = [np.shape(item)[0] for item in items]
    return list(np.split(np.asarray(g), np.cumsum(lengths)[:-1])) if lengths else []


def grad_list_concat(g: list, like: Any, lengths: Any) -> np.ndarray:
    """The gradient of the value a TensorArray was split from: the pieces' gradients joined."""
    like = np.asarray(like)
    out = np.zeros_like(like)
    start = 0
    for i, length in enumerate(_rows(lengths)):
        if i < len(g) and g[i] is not None:
            out[start:start + length] = g[i]
        start += length
    return out


def ta_scatter_once(items: list, indices: Any, value: Any, dynamic: bool, dtype: np.dtype) -> list:
    """A TensorArray scatter inside a loop being differentiated: each element is written once."""
    from runtime.ops.state import ta_scatter

    for i in _rows(indices):
        if 0 <= i < len(items) and items[i] is not None:
            raise InvalidArgumentError(
                f"TensorArray element {i} is written twice in a loop that is differentiated; its gradient "
                f"needs each element written once (as in TensorFlow). Write each iteration to its own indices."
            )
    return ta_scatter(items, indices, value, dynamic, dtype)


def setitem_value_grad(g: Any, *forward: Any, key: Any, x_at: int, value_at: int) -> np.ndarray:
    """The gradient of `value` in `x[key] = value` (forward: the setitem's inputs)."""
    x, value = np.asarray(forward[x_at]), np.asarray(forward[value_at])
    index = fill_key(key, forward)
    g = np.asarray(g)
    region = np.shape(np.empty(x.shape, dtype=np.int8)[index])
    ids = np.arange(int(np.prod(region)), dtype=np.int64).reshape(region)
    canvas = np.full(x.shape, -1, dtype=np.int64)
    canvas[index] = ids  # the same assignment, on element numbers: the winners stay
    won = canvas[index] == ids
    return _sum_to(np.where(won, g[index], 0), value).astype(value.dtype, copy=False)


UPDATE_GRAD_OPS = {
    "grad_list_put_rows": _register("grad_list_put_rows", grad_list_put_rows, _handle),
    "grad_list_take_rows": _register("grad_list_take_rows", grad_list_take_rows, _like(2)),
    "grad_list_drop_rows": _register("grad_list_drop_rows", grad_list_drop_rows, _handle),
    "grad_list_split_like": _register("grad_list_split_like", grad_list_split_like, _handle),
    "grad_list_concat": _register("grad_list_concat", grad_list_concat, _like(1)),
    "ta_scatter_once": _register("ta_scatter_once", ta_scatter_once, _handle, inplace=True),
    "setitem_value_grad": _register("setitem_value_grad", setitem_value_grad, lambda t, a: t[1 + a["value_at"]]),
}
GRAD_OPS.update(UPDATE_GRAD_OPS)
