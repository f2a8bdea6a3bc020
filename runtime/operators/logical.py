"""and_, or_, not_: Python's short-circuit semantics; logical ops on Tensors.

`a and b` becomes `ag__.and_(lambda: a, lambda: b)`: `b` is evaluated only
when Python would evaluate it, and the result is the operand Python returns. A bool operand, the common case
in Python mode, is recognised before any isinstance check.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.tensor import Tensor

__all__ = ["and_", "or_", "not_"]


def and_(a: Callable[[], object], b: Callable[[], object]) -> object:
    left = a()
    if type(left) is not bool and isinstance(left, Tensor):
        from runtime.operators.staged_logical import staged_and

        return staged_and(left, b)
    return b() if left else left


def or_(a: Callable[[], object], b: Callable[[], object]) -> object:
    left = a()
    if type(left) is not bool and isinstance(left, Tensor):
        from runtime.operators.staged_logical import staged_or

        return staged_or(left, b)
    return left if left else b()


def not_(a: object) -> object:
    if type(a) is not bool and isinstance(a, Tensor):
        from runtime.operators.staged_logical import staged_not

        return staged_not(a)
    return not a
