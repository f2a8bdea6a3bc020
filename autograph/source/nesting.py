"""Nesting: where a tree is deepest, and the error for code nested deeper than a resource allows.

Code as deep as Python compiles converts (see `deep`); what still runs out
(the 200 brackets Python's tokenizer nests, its parser's stack, the deep
thread's own limit) becomes a ConversionError at the user's deepest line,
never a RecursionError, MemoryError or a SyntaxError from generated code.
"""

from __future__ import annotations

import ast

import gast

from autograph.source.diagnostics import conversion_error
from runtime.ir.errors import ConversionError

__all__ = ["deepest", "too_deep_error", "resource_reason"]


def deepest(tree: ast.AST | gast.AST) -> tuple[int, int]:
    """(depth, line) of the most deeply nested node that has a line; iterative, for any depth."""
    best_depth, best_line = 0, getattr(tree, "lineno", 1)
    stack: list[tuple[object, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        line = getattr(node, "lineno", None)
        if line is not None and depth > best_depth:
            best_depth, best_line = depth, line
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                stack.extend((item, depth + 1) for item in value if isinstance(item, (ast.AST, gast.AST)))
            elif isinstance(value, (ast.AST, gast.AST)):
                stack.append((value, depth + 1))
    return best_depth, best_line


def resource_reason(error: BaseException) -> str:
    """What ran out, in the user's terms, for a RecursionError, MemoryError or generated SyntaxError."""
    if isinstance(error, RecursionError):
        return "converting it needs more nested calls than Python's recursion limit allows, even on a deep stack"
    if isinstance(error, MemoryError):
        return "Python's parser runs out of its stack on code nested this deeply"
    return f"Python cannot compile its converted code ({getattr(error, 'msg', error)})"


def too_deep_error(
    name: str, filename: str, tree: ast.AST | gast.AST | None, first_line: int, error: BaseException
) -> ConversionError:
    """The error for `name`, whose source `tree` (lines relative to `first_line`) is nested too deep."""
    depth, line = deepest(tree) if tree is not None else (0, 1)
    user_line = first_line + line - 1
    levels = f" {depth:,} levels deep" if depth else " deeply"
    return conversion_error(
        f"cannot convert {name!r}: its code is nested{levels} at line {user_line}",
        filename,
        user_line,
        resource_reason(error),
        "split the deepest expression or chain: assign parts of it to variables, or turn a long "
        "if/elif chain into a lookup (a dict or a list indexed by the value)",
        function=name,
    )
