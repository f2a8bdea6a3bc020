"""list_append: `l.append(x)` as a rebinding, so loops can carry the list.

The converter rewrites the statement `l.append(x)` to
`l = ag__.list_append(l, x)`; in Python mode this appends in place and returns
the same list, so identity and aliasing are unchanged.
"""

from __future__ import annotations

__all__ = ["list_append"]


def list_append(target: object, element: object) -> object:
    if type(target) is list:  # the Python case first: no attribute lookup
        target.append(element)
        return target
    if getattr(target, "__autograph_staged_list__", False):
        return target.append(element)  # staged lists are values: append returns the new one
    target.append(element)
    return target
