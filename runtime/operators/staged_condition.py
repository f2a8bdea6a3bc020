"""A staged condition holds one truth value, as Python's tests do.

`assert v`, `a if v else b` and `v and w` test `bool(v)`, which NumPy
refuses for an array of several values ("the truth value of an array with
more than one element is ambiguous"). Staged, such a condition would
otherwise be checked elementwise or fail deep in the cond, so a condition
whose shape is known to hold other than one value is refused while
tracing, naming the user's line; one of unknown shape is tested when the
graph runs, where NumPy raises as in the original.
"""

from __future__ import annotations

import math

from runtime.ir.origin import Origin
from runtime.ir.types import TensorType
from runtime.operators.staged_state import rule_error

__all__ = ["require_one_value"]

_ELEMENTWISE = {
    "and": "or combine elementwise with np.logical_and(a, b)",
    "or": "or combine elementwise with np.logical_or(a, b)",
    "assert": "",
}


def require_one_value(type_: TensorType, origin: Origin | None, part: str, construct: str) -> None:
    """Raise the rule's StagingError when `type_` is known to hold other than one value.

    `part` names what is tested ("the condition", "the left operand"); `construct`
    is "assert", "and", "or" or "conditional expression".
    """
    shape = type_.shape
    if shape is None or math.prod(d or 1 for d in shape) == 1:
        return
    alternative = _ELEMENTWISE.get(construct, "or select elementwise with np.where(c, a, b)")
    fix = "Reduce it to one value first, e.g. with np.all(...) or np.any(...)"
    article = "an" if str(type_)[0] in "aeiou" else "a"  # an int64[2] Tensor
    raise rule_error(
        f"{part} of a tensor-dependent {construct} is {article} {type_} Tensor, but Python tests one truth "
        f"value (NumPy refuses the truth value of an array with more than one element)",
        origin, f"{fix}{', ' + alternative if alternative else ''}.",
    )
