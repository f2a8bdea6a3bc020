"""The gradient of `ag.py_function(func, inp, Tout, grad=grad_fn)`: the user's gradient, as a host call.

The tape cannot see inside Python code, so a py_function differentiates
only when its caller says how: `grad_fn(upstream, *inputs)` gets the
gradient of the result (a list of them when `Tout` is a list) and the
inputs as NumPy values, and returns one gradient per input (just the one
for a single input; None for "zero"). The backward pass calls it through
another py_function node, so it runs at every execution like the forward
call:

    y = py_function(f, [x], float64, grad=df)    ->   gx = py_function(df-call, [g, x], [float64])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.ir.errors import InvalidArgumentError
from runtime.ir.graph import Node
from runtime.ir.origin import Origin
from runtime.ir.types import TensorType
from runtime.passes.gradient.build import is_float
from runtime.passes.gradient.errors import not_differentiable

__all__ = ["differentiate_py_function", "GradientCall"]


class GradientCall:
    """Calls the user's gradient function with NumPy values and checks what it returns.

    Hashable by identity (it is an op attribute), named for the user's function."""

    def __init__(self, grad: Callable, upstream: int, multiple: bool, wanted: Sequence[int],
                 types: Sequence[TensorType], origin: Origin | None) -> None:
        self.grad = grad
        self.upstream = upstream
        self.multiple = multiple
        self.wanted = tuple(wanted)
        self.types = tuple(types)
        self.origin = origin
        self.__name__ = getattr(grad, "__name__", "grad")

    def __call__(self, *values: Any) -> list:
        up, inputs = values[: self.upstream], values[self.upstream:]
        result = self.grad(list(up) if self.multiple else up[0], *inputs)
        if len(inputs) == 1 and not isinstance(result, (list, tuple)):
            result = [result]
        if not isinstance(result, (list, tuple)) or len(result) != len(inputs):
            raise InvalidArgumentError(self._message(
                f"returned {type(result).__name__} {result!r:.60}, but it must return one gradient per input "
                f"of the py_function ({len(inputs)}), in a list or tuple (None for an input without one)"
            ))
        out = []
        for position, type_ in zip(self.wanted, self.types):
            given = result[position]
            shape = np.shape(inputs[position])
            if given is None:
                out.append(np.zeros(shape, type_.dtype))
                continue
            value = np.asarray(given, dtype=type_.dtype)
            if value.shape != shape:
                raise InvalidArgumentError(self._message(
                    f"returned a gradient of shape {value.shape} for input {position}, whose shape is {shape}; "
                    f"return each input's gradient in that input's shape"
                ))
            out.append(value)
        return out

    def _message(self, text: str) -> str:
        where = f" at {self.origin}" if self.origin is not None else ""
        excerpt = f"\n{self.origin.excerpt()}" if self.origin is not None and self.origin.text else ""
        return f"the gradient function {self.__name__!r} given to the ag.py_function{where} {text}.{excerpt}"


def differentiate_py_function(bp: Any, node: Node, g: Any) -> list[tuple[Node, Node]]:
    """(input, gradient) pairs for a py_function node; `g` is its gradient (a list of slots when it
    has several results)."""
    grad = node.attrs.get("grad")
    if grad is None:
        raise not_differentiable(node)
    em = bp.em
    multiple = node.attrs["multiple"]
    if multiple:
        upstream = []
        for index, (slot, type_) in enumerate(zip(g, node.type)):
            if slot is None:
                result = em.node("getitem", (node,), {"index": index}, type_=type_, name="result")
                slot = em.call("zeros_like", result)
            upstream.append(slot)
    else:
        upstream = [g]
    wanted = [i for i, x in enumerate(node.inputs) if is_float(x.type)]
    if not wanted:
        return []
    types = [node.inputs[i].type for i in wanted]
    call = GradientCall(grad, len(upstream), multiple, wanted, types, node.origin)
    attrs = {"func": call, "Tout": tuple(t.dtype for t in types), "multiple": True}
    backward = em.node("py_function", (*upstream, *node.inputs), attrs, type_=tuple(types), name="py_function_grad")
    return [
        (node.inputs[i], em.node("getitem", (backward,), {"index": k}, type_=types[k], name="grad"))
        for k, i in enumerate(wanted)
    ]
