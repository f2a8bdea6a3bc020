"""How a call's arguments are matched to a saved trace, and how a trace's signature is printed.

A loaded function cannot trace again, so every call must fit a saved trace
exactly as the Function would have reused it: `fit` takes a tensor argument
of the traced dtype and shape (Python numbers only when called as a concrete
function), `same_python` compares a Python argument with its traced value.
`describe*` and `format_*` word the errors and the printed signatures.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.backends.export.restored import RestoredVariable
from runtime.backends.export.saved_format import ConstLeaf, TensorLeaf, VariableLeaf
from runtime.ir.structure import TreeDef, flatten
from runtime.ir.types import TensorType, dtype_label

__all__ = ["conforms", "fit", "numbers_as_array", "same_python", "describe", "describe_value", "format_in", "format_out",
           "format_leaves"]


def fit(leaf: Any, type_: TensorType, strict: bool) -> Any:
    """`leaf` as an array of `type_`, or None. Python numbers fit only when not `strict`."""
    if type(leaf) is np.ndarray:  # the common case first
        return leaf if leaf.dtype == type_.dtype and _shape_fits(leaf.shape, type_.shape) else None
    if isinstance(leaf, (np.ndarray, np.generic)):
        array = np.asarray(leaf)
    elif isinstance(leaf, RestoredVariable):
        return None
    elif strict or not isinstance(leaf, (bool, int, float, complex, list)):
        return None
    else:
        try:
            array = np.asarray(leaf)
        except ValueError:
            return None
        if type_.dtype.kind not in _FITS.get(array.dtype.kind, ""):
            return None
        array = array.astype(type_.dtype)
    if not type_.is_compatible_with(array.dtype, array.shape):
        return None
    return leaf if isinstance(leaf, np.ndarray) else array


def numbers_as_array(value: Any) -> Any:
    """A Python number (or nested list of them) as an array, as a Function with
    follow_type_hints=True takes it for a parameter annotated ag.Tensor; anything else as is."""
    if isinstance(value, (np.ndarray, np.generic, RestoredVariable)):
        return value
    leaves, _ = flatten(value)
    if leaves and all(isinstance(leaf, (bool, int, float, complex)) for leaf in leaves):
        return np.asarray(value)
    return value


def _shape_fits(shape: tuple[int, ...], expected: Any) -> bool:
    if expected is None:
        return True
    if len(shape) != len(expected):
        return False
    for dim, want in zip(shape, expected):
        if want is not None and dim != want:
            return False
    return True


_FITS = {"b": "b", "i": "iuf", "u": "iuf", "f": "f", "c": "c", "U": "U", "S": "S"}


def same_python(value: Any, traced: Any) -> bool:
    if type(value) is not type(traced):
        return False
    if isinstance(value, float) and math.isnan(value) and math.isnan(traced):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype == traced.dtype and value.shape == traced.shape and bool(np.all(value == traced))
    try:
        return bool(value == traced)
    except ValueError:
        return False


def describe(type_: TensorType) -> str:
    return f"{dtype_label(type_.dtype)} tensor of shape {type_.shape_str()}"


def describe_value(value: Any) -> str:
    if isinstance(value, (np.ndarray, np.generic)):
        return describe(TensorType(value.dtype, np.shape(value)))
    return f"{type(value).__name__} value {value!r:.40}"


def format_in(plan: Any) -> str:
    if isinstance(plan, TensorLeaf):
        return f"{dtype_label(plan.type.dtype)} Tensor, shape={plan.type.shape_str()}"
    if isinstance(plan, VariableLeaf):
        variable = plan.variable
        return f"{dtype_label(variable.dtype)} Variable, shape={variable._type.shape_str()}"
    return repr(plan.value)


def format_out(plan: Any, out_types: list) -> str:
    if isinstance(plan, ConstLeaf):
        return repr(plan.value)
    out_type = out_types[plan]
    return f"{dtype_label(out_type.dtype)} Tensor, shape={out_type.shape_str()}"


def format_leaves(tree: TreeDef, leaves: Any, fmt: Callable[[Any], str]) -> str:
    if tree.kind == "leaf":
        return fmt(next(leaves))
    items = [format_leaves(child, leaves, fmt) for child in tree.children]
    if tree.kind == "list":
        return "[" + ", ".join(items) + "]"
    if tree.kind == "tuple":
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if tree.kind == "namedtuple":
        return f"{tree.data.__name__}(" + ", ".join(f"{k}={v}" for k, v in zip(tree.data._fields, items)) + ")"
    return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(tree.data, items)) + "}"


def conforms(tree: TreeDef, saved: TreeDef, loose: bool = True) -> bool:
    """Whether arguments structured as `tree` fit the saved structure. Where a namedtuple was saved
    (its class is not loaded), any namedtuple with the same fields fits, and (`loose`) a plain
    tuple of its length."""
    if saved.kind == "namedtuple":
        if tree.kind == "namedtuple":
            if tree.data._fields != saved.data._fields:
                return False
        elif tree.kind != "tuple" or not loose:
            return False
    elif tree.kind != saved.kind or tree.data != saved.data:
        return False
    return len(tree.children) == len(saved.children) and all(
        conforms(child, saved_child, loose) for child, saved_child in zip(tree.children, saved.children))
