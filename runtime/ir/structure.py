"""Nested structures as data: flatten to leaves plus a hashable treedef.

Lists, tuples, dicts (sorted keys; rebuilt in their own order), namedtuples
and dataclasses are containers; everything else is a leaf. The treedef is half of a trace's cache
key and tells `unflatten` how to rebuild the value.

    >>> leaves, tree = flatten({"b": [1, 2], "a": (3,)})
    >>> leaves
    [3, 1, 2]
    >>> unflatten(tree, [30, 10, 20])
    {'b': [10, 20], 'a': (30,)}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["TreeDef", "LEAF", "flatten", "unflatten", "map_structure", "is_container"]


@dataclasses.dataclass(frozen=True, slots=True, init=False)
class TreeDef:
    """A container's kind, its static data (keys, type) and its children's treedefs."""

    kind: str  # "leaf", "list", "tuple", "namedtuple", "dict", "dataclass"
    data: Any = None
    children: tuple[TreeDef, ...] = ()
    # a dict's keys in insertion order when it differs from the sorted `data`: unflatten
    # rebuilds the dict in that order; dicts that differ only in order still compare equal
    order: tuple | None = dataclasses.field(default=None, compare=False)

    def __init__(
        self, kind: str, data: Any = None, children: tuple[TreeDef, ...] = (), order: tuple | None = None
    ) -> None:
        # The slots' own setters, not object.__setattr__: every flatten of a container makes one.
        _set_kind(self, kind)
        _set_data(self, data)
        _set_children(self, children)
        _set_order(self, order)

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(child.num_leaves for child in self.children)

    def __str__(self) -> str:
        if self.kind == "leaf":
            return "*"
        inner = ", ".join(str(c) for c in self.children)
        if self.kind == "list":
            return f"[{inner}]"
        if self.kind == "tuple":
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.data, self.children)) + "}"
        return f"{self.data.__name__}({inner})"


_set_kind, _set_data, _set_children, _set_order = (
    vars(TreeDef)[field].__set__ for field in ("kind", "data", "children", "order")
)
LEAF = TreeDef("leaf")


def _is_namedtuple(value: object) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_container(value: object) -> bool:
    return (
        isinstance(value, (list, tuple, dict))
        or (dataclasses.is_dataclass(value) and not isinstance(value, type))
    )


def _sort_key(key: object) -> tuple[str, str]:
    return (type(key).__name__, repr(key))


def flatten(value: object, is_leaf: Callable[[object], bool] | None = None) -> tuple[list, TreeDef]:
    """Leaves in a deterministic order (dict keys sorted) and the treedef."""
    leaves: list = []
    tree = _flatten_into(value, leaves, is_leaf)
    return leaves, tree


def _flatten_into(value: object, leaves: list, is_leaf) -> TreeDef:
    if is_leaf is not None and is_leaf(value):
        leaves.append(value)
        return LEAF
    if type(value) is list:
        return TreeDef("list", None, tuple(_flatten_into(v, leaves, is_leaf) for v in value))
    if type(value) is tuple:
        return TreeDef("tuple", None, tuple(_flatten_into(v, leaves, is_leaf) for v in value))
    if _is_namedtuple(value):
        children = tuple(_flatten_into(v, leaves, is_leaf) for v in value)
        return TreeDef("namedtuple", type(value), children)
    if isinstance(value, dict):
        keys = tuple(sorted(value, key=_sort_key))
        children = tuple(_flatten_into(value[k], leaves, is_leaf) for k in keys)
        order = tuple(value)
        return TreeDef("dict", keys, children, None if order == keys else order)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = tuple(f.name for f in dataclasses.fields(value))
        children = tuple(_flatten_into(getattr(value, n), leaves, is_leaf) for n in names)
        return TreeDef("dataclass", (type(value), names), children)
    leaves.append(value)
    return LEAF


def unflatten(tree: TreeDef, leaves: list) -> Any:
    """Rebuild a value of shape `tree` from `leaves` (the inverse of flatten)."""
    iterator = iter(leaves)
    result = _build(tree, iterator)
    for _ in iterator:
        raise ValueError(f"too many leaves for structure {tree}")
    return result


def _build(tree: TreeDef, leaves) -> Any:
    if tree.kind == "leaf":
        try:
            return next(leaves)
        except StopIteration:
            raise ValueError("too few leaves for the structure") from None
    children = [_build(c, leaves) for c in tree.children]
    if tree.kind == "list":
        return children
    if tree.kind == "tuple":
        return tuple(children)
    if tree.kind == "namedtuple":
        return tree.data(*children)
    if tree.kind == "dict":
        built = dict(zip(tree.data, children))
        return built if tree.order is None else {key: built[key] for key in tree.order}
    cls, names = tree.data
    return cls(**dict(zip(names, children)))


def map_structure(fn: Callable[[Any], Any], value: Any) -> Any:
    """Apply `fn` to every leaf, keeping the structure."""
    leaves, tree = flatten(value)
    return unflatten(tree, [fn(leaf) for leaf in leaves])
