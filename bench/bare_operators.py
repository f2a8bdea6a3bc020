"""Bare operators: converted code's shape timed without the operators' own work.

A converted function rebound to these runs the same generated code (the
same branch and loop-body functions, the same calls) with operators
that do only what Python's own statement would: no Tensor check, no error
notes, no conversion of callees. What converted code costs over the
original with them is the cost of its shape; what it costs beyond that is
the operators'. Only for Python values: a Tensor condition is just a truthy
object here.

    ours / original  =  (shape / original) x (ours / shape)
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

__all__ = ["bare_copy"]


def if_stmt(cond, body, orelse, names=(), nouts=0, **options) -> None:
    branch = body if cond else orelse
    if branch is not None:
        branch()


def if_exp(cond, if_true, if_false, text) -> Any:
    return if_true() if cond else if_false()


def while_stmt(test, body, names=(), **options) -> None:
    while test():
        body()


def for_stmt(iter_, body, names=(), extra_test=None, **options) -> None:
    if extra_test is None:
        for item in iter_:
            body(item)
        return
    for item in iter_:  # as ours: a body returns its break flag, or None to ask extra_test
        flag = body(item)
        if flag is True or (flag is not False and not extra_test()):
            break


def and_(left, right, within=None) -> Any:
    return right() if left else left


def or_(left, right, within=None) -> Any:
    return left if left else right()


def not_(value) -> bool:
    return not value


def converted_call(func, /, *args, **kwargs) -> Any:
    return func(*args, **kwargs) if kwargs else func(*args)


_BARE = {
    "if_stmt": if_stmt, "if_exp": if_exp, "while_stmt": while_stmt, "for_stmt": for_stmt,
    "and_": and_, "or_": or_, "not_": not_, "converted_call": converted_call,
}  # fmt: skip


def bare_copy(converted: Callable) -> Callable:
    """`converted` (from `ag.convert`) with the bare operators in its `ag__`; the rest
    (Undefined and its checks, print, range...) are the real ones. A fast copy (autograph/python_mode.py)
    is replaced by the converted function it calls while tracing."""
    converted = getattr(converted, "__autograph_staged__", converted)
    code = converted.__code__
    cells = dict(zip(code.co_freevars, converted.__closure__ or ()))
    real = cells["ag__"].cell_contents
    namespace = types.ModuleType(real.__name__, real.__doc__)  # a module, as ours: its reads specialise alike
    namespace.__dict__.update({k: v for k, v in vars(real).items() if not k.startswith("__")})
    for name, operator in _BARE.items():
        setattr(namespace, name, operator)
    closure = tuple(types.CellType(namespace) if var == "ag__" else cells[var] for var in code.co_freevars)
    return types.FunctionType(code, converted.__globals__, converted.__name__, converted.__defaults__, closure)
