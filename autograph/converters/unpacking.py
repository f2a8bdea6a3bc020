"""unpacking: an assignment to a tuple or list target passes its value through `ag__.unpack`.

    a, b = t             ->  a, b = ag__.unpack(t, 2)
    first, *rest = t     ->  first, *rest = ag__.unpack(t, (None, '*'))
    (a, b), c = pair     ->  (a, b), c = ag__.unpack(pair, ((None, None), None))
    a, b = b, a          ->  a, b = b, a          (a tuple or list display is left alone)

A staged Tensor cannot be iterated by Python; the operator gives the rows of
one whose first dimension is known (runtime.operators.unpacking) and returns
any other value as it is, so Python-mode code assigns exactly as before.
Only the user's assignments are seen: the pass runs before control flow
writes its own `a, b = state` unpackings.
"""

from __future__ import annotations

import gast

from autograph.source.origins import inherit_location
from autograph.source.templates import constant, replace_expr

__all__ = ["assign"]

_SEQUENCES = (gast.Tuple, gast.List)


def _form(target: gast.expr) -> object:
    """The target's form for `unpack`: a count when flat, else one entry per item."""
    entries = tuple(
        "*" if isinstance(e, gast.Starred) else _form(e) if isinstance(e, _SEQUENCES) else None
        for e in target.elts
    )
    if all(e is None for e in entries):
        return len(entries)
    return tuple((None,) * e if isinstance(e, int) else e for e in entries)


def assign(node: gast.Assign) -> gast.Assign:
    """Wrap the value of an assignment whose target (the first, when chained) is a tuple or list."""
    target = node.targets[0]
    if len(node.targets) != 1 or not isinstance(target, _SEQUENCES) or isinstance(node.value, _SEQUENCES):
        return node
    form = _form(target)
    if isinstance(form, int) and form == 0:
        return node
    call = replace_expr("ag__.unpack(value, form)", node.value, value=node.value, form=constant(form))
    inherit_location([call], node.value)
    node.value = call
    return node
