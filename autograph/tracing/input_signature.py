"""input_signature: one trace for every call whose tensors fit the given specs.

A Function with an input signature traces once, for the specs, and checks
every call against them: a value of another dtype, rank or fixed dimension
raises ValueError naming the argument and the signature, as the guide shows.
Python numbers and lists are converted to the spec's dtype when their kind
fits (an int for an int or float spec, a float for a float spec).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from autograph.tracing.signature import Signature
from autograph.tracing.spec import TensorSpec
from runtime.ir.errors import InvalidArgumentError
from runtime.ir.input_arrays import plain_array
from runtime.ir.structure import LEAF, TreeDef, flatten, unflatten
from runtime.tracing.tensor import Tensor

__all__ = ["InputSignature", "value_for_spec"]

# the dtype kinds a Python value of each kind may be converted to
_FITS = {"b": "b", "i": "iuf", "u": "iuf", "f": "f", "c": "c", "U": "U", "S": "S"}


class InputSignature:
    """The flattened specs of an `input_signature` and the check of a call against them."""

    def __init__(self, input_signature: Any, signature: Signature) -> None:
        specs = tuple(input_signature)
        rest = signature.params[len(specs):]
        if len(specs) > len(signature.params) or any(p.default is p.empty for p in rest):
            raise TypeError(
                f"input_signature has {len(specs)} entries but the function takes "
                f"{len(signature.names)} arguments ({', '.join(signature.names)}); give one "
                f"TensorSpec (or nested structure of them) per argument without a default"
            )
        self.specs, self.spec_tree = flatten(specs)
        for spec in self.specs:
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"input_signature must hold only TensorSpecs, got {spec!r}")
        self.input_signature = specs
        self.names = signature.names
        self.defaults = tuple(p.default for p in rest)
        # what a trace is made for: the specs, then the other arguments at their defaults
        self.leaves, self.tree = flatten(specs + self.defaults)
        count = len(self.specs)
        self.trace_specs = [leaf if i < count else None for i, leaf in enumerate(self.leaves)]
        self._single = self.spec_tree.children == (LEAF,) and not self.defaults

    def inputs_for(self, values: tuple, name: str, specs: bool = False) -> list:
        """The flat arrays for a call, or ValueError when they do not fit. With `specs`
        (get_concrete_function) a TensorSpec that the signature's spec covers fits too."""
        if self._single and len(values) == 1 and type(values[0]) is np.ndarray:
            value = values[0]
            if self.specs[0].type.is_compatible_with(value.dtype, value.shape):
                return [value]
        count = len(self.input_signature)
        for param, value, default in zip(self.names[count:], values[count:], self.defaults):
            if value is not default and not _same(value, default):
                reason = f"argument {param!r} is not in the signature, so it must keep its default"
                raise self._error(values, name, reason)
        values = values[:count]
        leaves = _flatten_up_to(self.spec_tree, values)
        if leaves is None:
            raise self._error(values, name, "the arguments are not structured like the signature")
        inputs = []
        for index, (leaf, spec) in enumerate(zip(leaves, self.specs)):
            given = specs and isinstance(leaf, TensorSpec)
            value = leaf if given else value_for_spec(leaf, spec)
            if value is None or not (spec.is_compatible_with(value) if given else _fits(spec, value)):
                shown = leaf if value is None else value
                if given:
                    what = repr(shown)
                elif isinstance(shown, Tensor):
                    what = f"staged {shown.dtype.name} tensor of shape {shown.shape}"
                elif _is_array_like(shown):
                    what = f"{np.asarray(shown).dtype.name} value of shape {np.shape(shown)}"
                else:
                    what = f"{type(shown).__name__} value"
                param = self._param_of(index)
                article = "" if given else "an " if what[0] in "aeiou" else "a "
                reason = f"argument {param!r} is {article}{what}, which does not fit {spec!r}"
                raise self._error(values, name, reason)
            inputs.append(value)
        return inputs

    def inline_arguments(self, values: tuple, name: str) -> tuple:
        """The arguments of a call recorded into another trace: checked like a call, Python
        values converted to the spec's dtype, staged tensors passed as they are."""
        inputs = self.inputs_for(values, name)
        return tuple(unflatten(self.spec_tree, inputs)) + tuple(values[len(self.input_signature):])

    def _param_of(self, index: int) -> str:
        start = 0
        for name, child in zip(self.names, self.spec_tree.children):
            if index < start + child.num_leaves:
                return name
            start += child.num_leaves
        return f"input {index}"

    def _error(self, values: tuple, name: str, reason: str) -> InvalidArgumentError:
        """The guide's ValueError, as our InvalidArgumentError (a ValueError): inputs of the wrong
        dtype or shape for the graph."""
        inputs = ",\n    ".join(repr(v) if not isinstance(v, np.ndarray) else str(v) for v in values)
        signature = ",\n    ".join(repr(s) for s in self.input_signature)
        return InvalidArgumentError(
            f"Python inputs incompatible with input_signature of {name}: {reason}.\n"
            f"  inputs: (\n    {inputs})\n"
            f"  input_signature: (\n    {signature}).\n"
            f"Pass arrays of the signature's dtype and shape, or change the input_signature."
        )


def _same(value: Any, default: Any) -> bool:
    try:
        return type(value) is type(default) and bool(value == default)
    except Exception:  # arrays and objects without a plain ==
        return False


def _is_array_like(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic, bool, int, float, complex, list, tuple))


def value_for_spec(leaf: Any, spec: TensorSpec) -> Any:
    """`leaf` as an array for `spec`: NumPy values as they are, Python values cast if they fit."""
    if isinstance(leaf, np.ndarray):
        return plain_array(leaf)  # native byte order; np.ma and np.matrix refused
    if isinstance(leaf, (np.generic, Tensor)):
        return leaf
    if not isinstance(leaf, (bool, int, float, complex, str, list)):
        return None
    try:
        array = np.asarray(leaf)
    except ValueError:
        return None
    if spec.dtype.kind not in _FITS.get(array.dtype.kind, ""):
        return None
    return array.astype(spec.dtype)


def _fits(spec: TensorSpec, value: Any) -> bool:
    """An array fits a spec by its dtype and shape; a staged tensor's unknown dims fit any."""
    if not isinstance(value, Tensor):
        return spec.is_compatible_with(value)
    if value.dtype != spec.dtype:
        return False
    if spec.shape is None or value.shape is None:
        return True
    return len(spec.shape) == len(value.shape) and all(
        d is None or v is None or d == v for d, v in zip(spec.shape, value.shape)
    )


_SEQUENCES = frozenset({"list", "tuple"})


def _flatten_up_to(tree: TreeDef, value: Any) -> list | None:
    """The leaves of `value` where `tree` has leaves (a list may stand for one spec).

    A list and a tuple stand for each other, as in TensorFlow's check: the
    function receives the signature's structure.
    """
    if tree.kind == "leaf":
        return [value]
    _, own = flatten(value, is_leaf=lambda v: v is not value)
    sequences = {own.kind, tree.kind} <= _SEQUENCES
    if not sequences and (own.kind != tree.kind or own.data != tree.data):
        return None
    if len(own.children) != len(tree.children):
        return None
    children = value.values() if isinstance(value, dict) else value
    if isinstance(value, dict):
        children = [value[k] for k in tree.data]
    leaves: list = []
    for child_tree, child in zip(tree.children, children):
        part = _flatten_up_to(child_tree, child)
        if part is None:
            return None
        leaves.extend(part)
    return leaves
