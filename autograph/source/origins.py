"""Origins: generated nodes inherit the user's location; generated lines map back.

Converters give every node they create the location of the user's node it
replaces (`inherit_location`). After unparsing, `line_map` re-parses the
generated text and walks it beside the tree it came from, pairing each
generated line with the user's line.
"""

from __future__ import annotations

import ast

import gast

__all__ = ["inherit_location", "line_map"]

_ATTRS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def inherit_location(nodes: gast.AST | list, ref: gast.AST) -> None:
    """Give every node under `nodes` that has no location the location of `ref`."""
    if not hasattr(ref, "lineno"):
        return
    loc = {attr: getattr(ref, attr, None) for attr in _ATTRS}
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if getattr(node, "lineno", None) is not None:
            continue  # a user node (or one placed before): its subtree has locations
        if isinstance(node, (gast.stmt, gast.expr, gast.excepthandler)):
            for attr, value in loc.items():
                setattr(node, attr, value)
        stack.extend(gast.iter_child_nodes(node))


def _statements(node: ast.AST):
    """The statements under `node` (itself included), in a fixed order; expressions skipped."""
    yield node
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        children = getattr(node, field, None)
        if isinstance(children, list):
            for child in children:
                yield from _statements(child)


def line_map(source_tree: ast.AST, generated_tree: ast.AST, last_line: int) -> dict[int, int]:
    """Generated line -> the user line (relative) of the statement that produced it.

    `generated_tree` is the parse of the generated text, `source_tree` the tree
    it was unparsed from (same shape, user line numbers). Lines that start no
    statement take the mapping of the line above.
    """
    mapping: dict[int, int] = {}
    for gen, src in zip(_statements(generated_tree), _statements(source_tree)):
        line = getattr(gen, "lineno", None)
        user = getattr(src, "lineno", None)
        if line is not None and user is not None and line not in mapping:
            mapping[line] = user
    last = None
    for line in range(1, last_line + 1):
        if line in mapping:
            last = mapping[line]
        elif last is not None:
            mapping[line] = last
    return mapping
