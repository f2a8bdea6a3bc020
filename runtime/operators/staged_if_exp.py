"""Staged `a if c else b` (and the and/or built on it): one cond whose output is the value.

The branches are the two lambdas of `ag__.if_exp`, traced as staged_if traces
an if's branches, with the same rules for the value each gives (see
staged_if). A chain of ifs whose branches only return reaches here as
`ag__.if_exp(c, lambda: a, lambda: b, 'return')` (see the converter's
conditional_returns) and is worded as the if it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.ir.origin import Origin, user_origin
from runtime.operators.staged_condition import require_one_value
from runtime.operators.staged_if import BRANCH, branch_error, stage_branches
from runtime.operators.unbound_in_trace import unbound_read
from runtime.tracing.frontend import get_frontend

__all__ = ["staged_if_exp"]


def staged_if_exp(
    cond: Any, if_true: Callable[[], object], if_false: Callable[[], object], expr_repr: str
) -> object:
    """Stage `a if cond else b` whose condition is a Tensor."""
    origin = user_origin()
    if expr_repr == "return":  # the value of a chain of ifs whose branches return: staged as that if
        return _staged_return(cond, if_true, if_false, origin)
    logical = expr_repr in ("and", "or")  # a staged and/or comes here as `b if a else a`
    part = "the left operand" if logical else "the condition"
    construct = expr_repr if logical else "conditional expression"
    require_one_value(get_frontend(cond).type_of(cond), origin, part, construct)

    def traced(fn: Callable[[], object], side: bool) -> Callable[[], tuple]:
        def run() -> tuple:
            try:
                return (fn(),)
            except NameError as error:
                part = (f"the right operand of the tensor-dependent {expr_repr}"
                        if expr_repr in ("and", "or")
                        else f"the {BRANCH[side]} of the tensor-dependent conditional expression")
                raised = unbound_read(error, part, origin, "expression")
                if raised is None:
                    raise
                raise raised from error

        return run

    what = f"'{expr_repr}'" if logical else construct
    (result,) = stage_branches(cond, traced(if_true, True), traced(if_false, False), (expr_repr,), origin, what)
    return result


def _staged_return(
    cond: Any, if_true: Callable[[], object], if_false: Callable[[], object], origin: Origin | None
) -> object:
    """`return a` / `return b` of an if on a Tensor, converted into one return of
    `ag__.if_exp(c, lambda: a, lambda: b, 'return')`: errors name the if and the function's
    return value, as they do for the if statement the converter keeps when a branch does more."""
    require_one_value(get_frontend(cond).type_of(cond), origin, "the condition", "if")

    def traced(fn: Callable[[], object], side: bool) -> Callable[[], tuple]:
        def run() -> tuple:
            try:
                return (fn(),)
            except Exception as error:
                raised = branch_error(error, side, origin)
                if raised is None:
                    raise
                raise raised from error

        return run

    (result,) = stage_branches(cond, traced(if_true, True), traced(if_false, False), ("retval",), origin, "if")
    return result
