"""Errors for a Tensor used where Python needs a concrete value: a bool, an int, an iterator, a hash.

A Tensor's value is known only when the graph runs, so `if t:`, `range(t)`,
`for v in t` or `t in {1, 2}` outside converted code cannot work. The error
names the user's line and the fix, which depends on what the line is (a
comprehension, a match, an `in` test): Tensor's methods say what was asked,
this module words the answer.
"""

from __future__ import annotations

import dis
import re
from typing import TYPE_CHECKING, Any

from runtime.ir.errors import StagingError
from runtime.ir.graph import leaked_error
from runtime.ir.origin import user_origin
from runtime.tracing.trace_context import current_graph

if TYPE_CHECKING:
    from runtime.tracing.tensor import Tensor

__all__ = ["COMPREHENSIONS", "concrete_use_error", "is_containment_test", "is_subscript"]

# code names of the frames comprehensions run in (before Python 3.12 inlines them)
COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})
_CONTAINS_OP = dis.opmap.get("CONTAINS_OP")
_COMPREHENSION = re.compile(r"[\[({][^\])}]*\bfor\b.*\bin\b")  # [v * 2 for v in x], on one line


_SUBSCRIPT = dis.opmap.get("BINARY_SUBSCR")  # Python 3.14 indexes with BINARY_OP (never matched here)


def is_subscript(frame: Any) -> bool:
    """Whether `frame` is running `a[key]` (NumPy asking a Tensor in the key for an array)."""
    code = frame.f_code.co_code
    return _SUBSCRIPT is not None and 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == _SUBSCRIPT


def is_containment_test(frame: Any) -> bool:
    """Whether `frame` is running an `in` / `not in` test (the bool of a Tensor it compared)."""
    code = frame.f_code.co_code
    return _CONTAINS_OP is not None and 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == _CONTAINS_OP


def _unconverted_fix(what: str, keyword: str, text: str) -> str | None:
    """The fix for a Tensor used by a construct conversion leaves as Python (match, comprehensions)."""
    if keyword in ("match", "case"):
        return ("A match statement is not converted: its cases are tested in Python, while tracing. "
                "Write them as if/elif tests of the Tensor (staged), or match on a Python value.")
    if what == "iterator" and keyword != "for" and _COMPREHENSION.search(text):
        return ("A comprehension is not converted: write it as a for loop (staged; append to a list "
                "or write an ag.TensorArray), or compute it with whole-array NumPy (x * 2, x[x > 0]).")
    return None


def concrete_use_error(tensor: Tensor, what: str, fix: str, statements: str = "") -> StagingError | TypeError:
    """The error of a Python use of a value known only when the graph runs.

    `statements`: the statements conversion stages for this use ("if or
    while" for a bool, "for" for an iterator), kept on the error as
    `converted_by` (the one the user's line starts with, when it does) so
    that a Function traced without conversion can say that conversion
    would have staged it.
    """
    origin = user_origin(3)  # the caller of the Tensor method calling this
    where = f" at {origin}" if origin is not None else ""
    used = what if what.startswith("NumPy") else f"Python {what}"
    if current_graph() is None:  # no graph will ever run it: its trace is over
        return leaked_error(tensor.node, "leaked out of its trace", f" It is used as a {used}{where}.")
    excerpt = f"\n{origin.excerpt()}" if origin is not None and origin.text else ""
    keyword = origin.text.split(maxsplit=1)[0].rstrip(":") if origin is not None and origin.text.strip() else ""
    unconverted = _unconverted_fix(what, keyword, origin.text if origin is not None else "")
    fix = unconverted or fix
    article = "an" if str(tensor.type)[0] in "aeiou" else "a"  # an int64[] Tensor
    error = StagingError(
        f"{article} {tensor.type} Tensor ({tensor.name}) was used as a {used}{where}; its value is "
        f"known only when the graph runs.{excerpt}\n{fix}"
    )
    # a match or a comprehension: conversion would not stage it either
    error.converted_by = "" if unconverted else keyword if keyword in statements.split() else statements
    return error
