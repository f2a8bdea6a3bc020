"""Origins: generated nodes inherit the user's location; generated lines map back.

Converters give every node they create the location of the user's node it
replaces (`inherit_location`). The emitter notes the line it writes each
statement on; `line_map` turns those starts into a map of every generated
line to the user's line.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import gast

from runtime.ir.origin import Origin, register_source_map

__all__ = ["LineOrigins", "inherit_location", "line_map"]


_LOCATED = (gast.stmt, gast.expr, gast.excepthandler)
# fields that never hold a located node: expression contexts, operators, plain strings and numbers
_PLAIN_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "module", "level", "conversion", "is_async", "simple"}
)


class _NodeFields(dict):
    """Node class -> (whether it takes a location, the fields that may hold nodes), found on first use.

    A constant's value is never a node: it has none.
    """

    def __missing__(self, cls: type) -> tuple[bool, tuple[str, ...]]:
        fields = () if cls is gast.Constant else tuple(f for f in cls._fields if f not in _PLAIN_FIELDS)
        found = self[cls] = (issubclass(cls, _LOCATED), fields)
        return found


_NODE_FIELDS: dict[type, tuple[bool, tuple[str, ...]]] = _NodeFields()


def inherit_location(nodes: gast.AST | list, ref: gast.AST) -> None:
    """Give every node under `nodes` that has no location the location of `ref`.

    Converters call this on every node they make, so it reads each class's
    fields from a table, a node's attributes from its `__dict__` (where the
    parser and the templates keep them), and writes a node's four
    attributes in one dict update.
    """
    if not hasattr(ref, "lineno"):
        return
    loc = {
        "lineno": ref.lineno,
        "col_offset": getattr(ref, "col_offset", None),
        "end_lineno": getattr(ref, "end_lineno", None),
        "end_col_offset": getattr(ref, "end_col_offset", None),
    }
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    pop, push, extend = stack.pop, stack.append, stack.extend
    table = _NODE_FIELDS
    while stack:
        node = pop()
        slots = node.__dict__
        if slots.get("lineno") is not None:
            continue  # a user node (or one placed before): its subtree has locations
        located, fields = table[type(node)]
        if located:
            slots.update(loc)
        for field in fields:  # the children, as gast.iter_child_nodes finds them
            value = slots.get(field)
            if type(value) is list:
                extend([child for child in value if isinstance(child, gast.AST)])
            elif value is not None and isinstance(value, gast.AST):
                push(value)


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


_LOOKUPS = 64  # lines looked up one by one before the whole map is made (a deep staged chain reads thousands)

class LineOrigins(Mapping):
    """A generated file's lines -> the user's `Origin`s, worked out on demand.

    Every conversion registers its file's map, but only an error or a staged
    node ever reads one. A lookup makes the Origin of its own line (a trace
    reads a handful of a file's lines: making them all cost more than the
    rest of the lookups); iterating makes them all and registers the
    finished dict in this object's place.

    `starts` are (generated line, user line relative to `first_line`) as
    `line_map` takes them, but for `offset`, added to every generated line
    when it is read (the lines the loader's factory puts above the code);
    `lines` are the user file's lines.
    """

    def __init__(
        self, generated_file: str, starts: list[tuple[int, int]], last_line: int,
        user_file: str, first_line: int, lines: list[str], function: str, offset: int = 0,
    ) -> None:
        self._where = (generated_file, starts, last_line, user_file, first_line, lines, function)
        self._offset = offset
        self._origins: dict[int, Origin] | None = None
        self._made: dict[int, Origin] = {}

    def _origin(self, relative: int) -> Origin:
        _, _, _, user_file, first_line, lines, function = self._where
        line = relative + first_line - 1
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return Origin(user_file, line, text, function)

    def _built(self) -> dict[int, Origin]:
        if self._origins is None:
            generated_file, starts, last_line = self._where[:3]
            if self._offset:
                starts = [(line + self._offset, relative) for line, relative in starts]
            self._origins = {
                line: self._made.get(line) or self._origin(relative)
                for line, relative in line_map(starts, last_line).items()
            }
            register_source_map(generated_file, self._origins)
        return self._origins

    def __getitem__(self, line: int) -> Origin:
        found = self._made.get(line)
        if found is None:
            if len(self._made) >= _LOOKUPS:  # a trace that reads many lines: each lookup walks `starts`
                return self._built()[line]
            found = self._made[line] = self._origin(self._relative(line))
        return found

    def _relative(self, line: int) -> int:
        """What `line_map` gives `line`: the first start on it, else the nearest start above it."""
        _, starts, last_line = self._where[:3]
        above = None
        for start, relative in starts:
            start += self._offset
            if start == line:
                return relative
            if 0 < start < line and (above is None or start > above[0]):
                above = (start, relative)
        if above is None or line > last_line:
            raise KeyError(line)
        return above[1]

    def __iter__(self) -> Iterator[int]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())
