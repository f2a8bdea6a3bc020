"""getitem: `TABLE[i]` of a NumPy array the function captured, with a staged index.

NumPy's own indexing cannot return a Tensor: `TABLE[i]` with a staged `i`
asks the Tensor for a concrete array and fails. The converter writes a
subscript of a name the function does not bind (a global, a closure value)
or of an attribute (`self.table[i]`), whose index is not a constant, as a
call of this operator:

    y = TABLE[i]          ->  y = ag__.getitem(TABLE, i)
    y = TABLE[i:j, 0]     ->  y = ag__.getitem(TABLE, (ag__.slice_(i, j, None), 0))

`np.take(TABLE, i)` reaches `take` here through converted_call (NumPy
dispatches np.take on its array alone). In Python mode each is NumPy's.
While tracing, a NumPy array indexed with a key that holds a Tensor becomes
a graph constant (its value now, as a rebound global keeps the value the
trace saw) and the lookup is staged: every form `Tensor` indexing takes
(ints, slices with staged bounds, integer and boolean index arrays, tuples
of them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ir.user_frames import note_user_code
from runtime.tracing.record import constant_node
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import graph_being_built

__all__ = ["getitem", "slice_", "take"]


def getitem(value: Any, key: Any) -> Any:
    """`value[key]`; staged when `value` is a NumPy array and `key` holds a Tensor."""
    try:
        if type(value) is np.ndarray and type(key) is not int and _holds_tensor(key):
            graph = graph_being_built()
            if graph is not None:
                return Tensor(constant_node(value, graph), graph)[key]
        return value[key]
    except Exception as error:
        note_user_code(error)
        raise


def take(a: Any, indices: Any, *args: Any, **kwargs: Any) -> Any:
    """np.take, which NumPy dispatches on `a` (and `out`) alone: a concrete array taken at staged
    indices becomes a graph constant here, and the Tensor then stages the take."""
    if type(a) is np.ndarray and _holds_tensor(indices):
        graph = graph_being_built()
        if graph is not None:
            a = Tensor(constant_node(a, graph), graph)
    return np.take(a, indices, *args, **kwargs)


def slice_(start: Any, stop: Any, step: Any) -> slice:
    """`start:stop:step` inside a key given to getitem (a key is an expression there)."""
    return slice(start, stop, step)


# keys that never hold a Tensor, tested first (`hasattr` of a missing attribute costs an exception)
_PLAIN_KEYS = frozenset({int, bool, str, type(None), type(Ellipsis), np.ndarray, np.int64, np.int32, np.bool_})


def _holds_tensor(key: Any) -> bool:
    kind = type(key)
    if kind in _PLAIN_KEYS:
        return False
    if kind is Tensor:
        return True
    if kind is tuple or kind is list:
        return any(_holds_tensor(item) for item in key)
    if kind is slice:
        return _holds_tensor(key.start) or _holds_tensor(key.stop) or _holds_tensor(key.step)
    return hasattr(key, "__autograph_tensor__")  # a Variable
