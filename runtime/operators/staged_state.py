"""The state a staged if or loop carries, seen as flat leaves with a kind each.

Branch and loop functions change variables through `get_state`/`set_state`;
each variable's value may be a nested structure (list, tuple, dict,
namedtuple, dataclass). Staged control flow flattens the values of `names`
into leaves and sorts each leaf into one kind:

- "staged": a Tensor, or a composite staged object (TensorArray, staged
  list) carried by its handle: it travels through the cond/loop;
- "number": a Python or NumPy number or array: it becomes a tensor when the
  branches disagree on it, or when it is a loop variable;
- "undefined": `Undefined(name)`, a name not bound yet on some path;
- "python": any other Python value (None, strings, functions): it must be the
  same on every path, since the graph cannot carry it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from runtime.ir.errors import StagingError
from runtime.ir.origin import Origin
from runtime.ir.structure import LEAF, TreeDef, flatten, unflatten
from runtime.ir.types import TensorType
from runtime.operators.undefined import Undefined
from runtime.tracing.frontend import Frontend

__all__ = [
    "FlatState",
    "leaf_kind",
    "is_number",
    "same_python_value",
    "rule_error",
    "describe",
    "type_of_leaf",
    "zeros_like_type",
    "is_return_value",
]


def is_number(value: object) -> bool:
    """A concrete value the graph can carry as a constant."""
    return isinstance(value, (bool, int, float, complex, np.generic, np.ndarray))


def leaf_kind(value: object, frontend: Frontend) -> str:
    if frontend.is_staged(value) or frontend.is_composite(value):
        return "staged"
    if isinstance(value, Undefined):
        return "undefined"
    if is_number(value):
        return "number"
    return "python"


def is_return_value(name: str) -> bool:
    """The converter's return value variable: never read on a path where it is unbound."""
    return name.startswith("retval")


def same_python_value(a: object, b: object) -> bool:
    """Equal Python values (numbers must also agree on type, arrays on dtype and shape)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects whose == is not a plain bool are different
        return False


def type_of_leaf(value: Any, frontend: Frontend) -> TensorType | None:
    """The TensorType a staged or number leaf has (or gets) in the graph."""
    if frontend.is_staged(value):
        return frontend.type_of(value)
    if is_number(value):
        array = np.asarray(value)
        return TensorType(array.dtype, array.shape)
    return None


def zeros_like_type(type_: TensorType, frontend: Frontend) -> Any:
    """A staged zero of `type_` (unknown dimensions become 0): a placeholder value."""
    shape = () if type_.shape is None else tuple(0 if d is None else d for d in type_.shape)
    return frontend.constant(np.zeros(shape, dtype=type_.dtype))


def describe(value: object, frontend: Frontend) -> str:
    """A short description of a leaf for error messages."""
    if frontend.is_staged(value):
        type_ = str(frontend.type_of(value))
        return f"{'an' if type_[0] in 'aeiou' else 'a'} {type_} Tensor"
    if frontend.is_composite(value):
        return f"a {type(value).__name__}"
    if isinstance(value, Undefined):
        return "undefined"
    if is_number(value):
        return f"the Python value {value!r}"
    return f"{type(value).__name__} {value!r}" if value is not None else "None"


def rule_error(summary: str, origin: Origin | None, fix: str) -> StagingError:
    """A StagingError in the project's shape: what, where (file:line and caret), the fix."""
    where = f" at {origin}" if origin is not None else ""
    excerpt = f"\n{origin.excerpt()}" if origin is not None else ""
    return StagingError(f"{summary}{where}{excerpt}\n{fix}")


def widening_hint(a: np.dtype, b: np.dtype) -> str:
    """Why one path holds float64 where another holds float32, when a strong int64 explains it.

    A Python number a staged loop carries (`n = 0; ... n += 1`) is an int64 Tensor
    there, so `total / n` of float32 data is float64, where the unstaged Python int
    keeps float32: the usual cause of such a mismatch after a loop.
    """
    narrow, wide = (a, b) if np.can_cast(a, b) else (b, a)
    if not (np.issubdtype(narrow, np.floating) and narrow != wide and np.result_type(narrow, np.int64) == wide):
        return ""
    return (
        f" A {wide} value beside {narrow} data often comes from a Python number a staged loop "
        f"carries: `n = 0` becomes an int64 Tensor there, and {narrow} / int64 is {wide}; cast it "
        f"where they meet (total / np.asarray(n, np.{narrow}), which works unstaged too)."
    )


def _is_leaf_for(frontend: Frontend):
    def is_leaf(value: object) -> bool:
        return frontend.is_staged(value) or frontend.is_composite(value) or isinstance(value, Undefined)

    return is_leaf


@dataclasses.dataclass
class FlatState:
    """The values of `names` as one flat list of leaves, with how to rebuild them."""

    names: tuple[str, ...]
    trees: tuple[TreeDef, ...]
    leaves: list
    owners: list[str]  # the variable name each leaf belongs to

    @classmethod
    def of(cls, names: tuple[str, ...], values: tuple, frontend: Frontend) -> FlatState:
        is_leaf = _is_leaf_for(frontend)
        trees, leaves, owners = [], [], []
        for name, value in zip(names, values):
            value_leaves, tree = flatten(value, is_leaf=is_leaf)
            trees.append(tree)
            leaves.extend(value_leaves)
            owners.extend([name] * len(value_leaves))
        return cls(tuple(names), tuple(trees), leaves, owners)

    def rebuild(self, leaves: list) -> tuple:
        """The variables' values with these leaves in place of the originals."""
        if len(leaves) == len(self.trees) and all(tree is LEAF for tree in self.trees):
            return tuple(leaves)  # the usual state: every variable is one leaf
        values, start = [], 0
        for tree in self.trees:
            count = tree.num_leaves
            values.append(unflatten(tree, list(leaves[start:start + count])))
            start += count
        return tuple(values)

    def mismatched_name(self, other: FlatState) -> str | None:
        """The first variable whose structure differs between self and other."""
        for name, mine, theirs in zip(self.names, self.trees, other.trees):
            if mine != theirs:
                return name
        return None

    def tree_of(self, name: str) -> TreeDef:
        return self.trees[self.names.index(name)]

    def spread_undefined(self, name: str, tree: TreeDef) -> FlatState | None:
        """This state with `name`, unbound here, shaped as `tree` of unbound leaves (so a
        return value bound to a tuple on one path only is matched leaf by leaf); None when
        `name` has a value here."""
        index = self.names.index(name)
        start = sum(t.num_leaves for t in self.trees[:index])
        if self.trees[index].num_leaves != 1 or not isinstance(self.leaves[start], Undefined):
            return None
        count, end = tree.num_leaves, start + 1
        return FlatState(
            self.names, self.trees[:index] + (tree,) + self.trees[index + 1:],
            self.leaves[:start] + [self.leaves[start]] * count + self.leaves[end:],
            self.owners[:start] + [name] * count + self.owners[end:],
        )
