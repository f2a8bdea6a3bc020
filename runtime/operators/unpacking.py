"""unpack: `a, b = t` of a staged Tensor whose first dimension is known stages `t[0], t[1]`.

Python unpacks by iterating, which a Tensor refuses (its length may be known
only when the graph runs). The converter passes the right-hand side of an
assignment to a tuple or list target through this operator, with the
target's form:

    a, b = t              ->  a, b = ag__.unpack(t, 2)
    first, *rest = t      ->  first, *rest = ag__.unpack(t, (None, '*'))
    (a, b), c = t         ->  (a, b), c = ag__.unpack(t, ((None, None), None))

Anything but a staged Tensor comes back as it is (a tuple or list holding
tensors for a nested target has those unpacked), so Python does the
assignment, and its errors, exactly as before. A Tensor becomes the tuple
of its rows when its first dimension is known and fits the target; an
unknown or different length is a StagingError naming the line.
"""

from __future__ import annotations

from typing import Any

from runtime.ir.errors import StagingError
from runtime.ir.origin import user_origin
from runtime.ir.user_frames import note_user_code
from runtime.tracing.staged import is_staged

__all__ = ["unpack"]

Spec = int | tuple


def unpack(value: Any, spec: Spec) -> Any:
    """`value`, made iterable for an assignment to a target of form `spec` (a count, or one entry
    per target item: None, '*' for the starred one, or a nested form)."""
    try:
        return _unpack(value, spec)
    except StagingError as error:
        note_user_code(error)
        raise


def _unpack(value: Any, spec: Spec) -> Any:
    entries = (None,) * spec if isinstance(spec, int) else spec
    if not is_staged(value):
        if isinstance(value, (tuple, list)) and isinstance(spec, tuple) and len(value) == len(entries) \
                and "*" not in entries:
            return tuple(v if entry is None else _unpack(v, entry) for v, entry in zip(value, entries))
        return value
    tensor = value.__autograph_tensor__() if hasattr(value, "__autograph_tensor__") else value
    shape = tensor.shape
    targets = len(entries) - ("*" in entries)
    where = user_origin(3)
    at = f"{where}: " if where is not None else ""
    wanted = f"at least {targets}" if "*" in entries else f"{targets}"
    if shape is None or not shape or shape[0] is None:
        if shape == ():
            raise StagingError(f"{at}cannot unpack a {tensor.type} scalar Tensor into {wanted} names: it has no rows.")
        raise StagingError(
            f"{at}cannot unpack a {tensor.type} Tensor into {wanted} names: its first dimension is unknown, "
            f"so its number of rows is known only when the graph runs. Index the rows you need "
            f"(a = t[0]; b = t[1]), or give the input a fixed first dimension (ag.TensorSpec((2, ...)))."
        )
    rows = shape[0]
    if rows < targets or ("*" not in entries and rows != targets):
        raise StagingError(
            f"{at}cannot unpack a {tensor.type} Tensor into {wanted} names: it has {rows} rows "
            f"({'too few' if rows < targets else 'too many'} values to unpack)."
        )
    items = [tensor[i] for i in range(rows)]
    star = entries.index("*") if "*" in entries else None
    for k, entry in enumerate(entries):
        if entry is None or entry == "*":
            continue
        position = k if star is None or k < star else rows - (len(entries) - k)
        items[position] = _unpack(items[position], entry)
    return tuple(items)
