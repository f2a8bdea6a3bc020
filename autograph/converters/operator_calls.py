"""operator_calls: recognising the operator calls earlier rewrites left in the tree.

Converters that run after control flow is lowered look at what it produced:
`operand_functions` finds the lazy operands of `ag__.if_exp(...)` and the loop
functions of `ag__.for_stmt(...)`, `unbound_reads` the operands of
`ag__.and_(...)` it must check, `loop_options` the options of
`ag__.while_stmt(...)`. Each asks the same question, answered here once:

    called_operator(parse("ag__.for_stmt(it, None, body, ...)"))  ->  "for_stmt"
    called_operator(parse("obj.for_stmt(it)"))                   ->  None
"""

from __future__ import annotations

import gast

__all__ = ["called_operator"]


def called_operator(node: gast.AST) -> str | None:
    """The operator's name when `node` is a call `ag__.<name>(...)`, else None."""
    if type(node) is not gast.Call:
        return None
    func = node.func
    if type(func) is gast.Attribute and type(func.value) is gast.Name and func.value.id == "ag__":
        return func.attr
    return None
