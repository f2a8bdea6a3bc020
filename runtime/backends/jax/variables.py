"""Variables lowered as state threaded through the function: their values come in
as arguments and their new values go out as results (`Lowering.state`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends.jax.refusals import staging_error_at
from runtime.backends.jax.values import _is_static
from runtime.ir.errors import InvalidArgumentError
from runtime.ir.graph import Graph, Node
from runtime.ir.origin import Origin
from runtime.ir.types import TensorType

__all__ = ["VariableSlot", "variables_of", "VariableLowering"]


class VariableSlot:
    """One Variable the graph reads or writes: its place in the threaded state."""

    __slots__ = ("ref", "name", "origin", "type", "assigned", "initialized_here")

    def __init__(self, ref: Any, name: str, origin: Origin | None) -> None:
        self.ref = ref
        self.name = name
        self.origin = origin
        self.type: TensorType | None = None
        self.assigned = False
        self.initialized_here = False


def variables_of(graph: Graph) -> list[VariableSlot]:
    """Every Variable read, assigned or initialized anywhere in `graph` (subgraphs included)."""
    found: dict[int, VariableSlot] = {}

    def walk(g: Graph) -> None:
        for node in g.nodes:
            if node.op in ("read_variable", "assign_variable", "initialize_variable"):
                variable = node.attrs["ref"]()
                key = id(variable) if variable is not None else id(node.attrs["ref"])
                slot = found.get(key)
                if slot is None:
                    slot = found[key] = VariableSlot(node.attrs["ref"], node.attrs["name"], node.attrs["origin"])
                if node.op == "read_variable":
                    slot.type = node.type
                elif node.op == "assign_variable":
                    slot.assigned = True
                else:
                    slot.initialized_here = True
                    slot.type = TensorType(variable.dtype, variable.shape) if variable is not None else node.inputs[0].type
                if slot.type is None and variable is not None:
                    slot.type = TensorType(variable.dtype, variable.shape)
            for value in node.attrs.values():
                if isinstance(value, Graph):
                    walk(value)

    walk(graph)
    return list(found.values())



class VariableLowering:
    """The Variable ops of `Lowering` (it provides jnp, variables, var_index and initialized)."""

    def _slot(self, node: Node) -> int:
        variable = node.attrs["ref"]()
        return self.var_index[id(variable) if variable is not None else id(node.attrs["ref"])]

    def _op_read_variable(self, node: Node, values: list, state: list) -> Any:
        index = self._slot(node)
        if not self.initialized[index]:
            slot = self.variables[index]
            raise staging_error_at(
                node.origin,
                f"the Variable '{slot.name}' is read before the graph gives it its first value; "
                f"initialize it before reading it.",
            )
        return state[index]

    def _op_assign_variable(self, node: Node, values: list, state: list) -> None:
        index = self._slot(node)
        slot = self.variables[index]
        value = values[0]
        mode = node.attrs["mode"]
        if mode in ("add", "sub"):
            value = state[index] + value if mode == "add" else state[index] - value
        shape = tuple(np.shape(value)) if _is_static(value) else tuple(value.shape)
        if slot.type is not None and slot.type.shape is not None and shape != tuple(slot.type.shape):
            raise InvalidArgumentError(
                f"cannot assign a value of shape {shape} to the Variable '{slot.name}' of "
                f"shape {tuple(slot.type.shape)}; a Variable keeps its shape."
            )
        state[index] = self.jnp.asarray(value).astype(slot.type.dtype)

    def _op_initialize_variable(self, node: Node, values: list, state: list) -> None:
        index = self._slot(node)
        if not self.initialized[index]:
            state[index] = self.jnp.asarray(values[0]).astype(self.variables[index].type.dtype)
            self.initialized[index] = True
