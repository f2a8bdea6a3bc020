"""Origins: generated nodes inherit the user's location; generated lines map back.

Converters give every node they create the location of the user's node it
replaces (`inherit_location`). The emitter notes the line it writes each
statement on; `line_map` turns those starts into a map of every generated
line to the user's line.
"""

from __future__ import annotations

import gast

__all__ = ["inherit_location", "line_map"]

_ATTRS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


_LOCATED = (gast.stmt, gast.expr, gast.excepthandler)


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
        if isinstance(node, _LOCATED):
            for attr, value in loc.items():
                setattr(node, attr, value)
        for field in node._fields:  # the children, as gast.iter_child_nodes finds them
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend([child for child in value if isinstance(child, gast.AST)])
            elif isinstance(value, gast.AST):
                stack.append(value)


def line_map(starts: list[tuple[int, int]], last_line: int) -> dict[int, int]:
    """Generated line -> the user line (relative) of the statement that produced it.

    `starts` pairs the line each generated statement starts on with its
    user's line (the emitter records them as it writes). Lines that start no
    statement take the mapping of the line above: `{1: 1, 2: 3}` and a third
    line that continues the second give `{1: 1, 2: 3, 3: 3}`.
    """
    mapping: dict[int, int] = {}
    for line, user in starts:
        mapping.setdefault(line, user)
    last = None
    for line in range(1, last_line + 1):
        if line in mapping:
            last = mapping[line]
        elif last is not None:
            mapping[line] = last
    return mapping
