"""The operators converted code calls (through `ag__`): Python or staged, per value."""

from runtime.operators.asserts import assert_stmt
from runtime.operators.for_stmt import for_stmt
from runtime.operators.getitem import getitem, slice_
from runtime.operators.if_chain import if_chain
from runtime.operators.if_exp import if_exp, if_exp_chain
from runtime.operators.if_stmt import if_stmt
from runtime.operators.item_assignment import setitem
from runtime.operators.lists import list_append
from runtime.operators.logical import and_, not_, or_
from runtime.operators.undefined import (
    Undefined,
    holds_undefined,
    is_undefined,
    raise_unbound,
    value_or_undefined,
)
from runtime.operators.unpacking import unpack
from runtime.operators.while_stmt import while_stmt

__all__ = [
    "assert_stmt",
    "for_stmt",
    "getitem",
    "slice_",
    "if_exp",
    "if_exp_chain",
    "if_chain",
    "if_stmt",
    "list_append",
    "and_",
    "not_",
    "or_",
    "Undefined",
    "is_undefined",
    "holds_undefined",
    "raise_unbound",
    "value_or_undefined",
    "while_stmt",
    "unpack",
    "setitem",
]
