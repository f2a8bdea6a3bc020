"""`ag.saved_model`: save traced Functions and their Variables; load them without the source.

    ag.saved_model.save(f, "saved/f")          # every concrete function f has traced
    g = ag.saved_model.load("saved/f")         # needs only the runtime, not f's source
    g(np.float32([1, 2]))

This module gathers the concrete functions of `Function` objects and describes
them without the converter; writing, checking and loading the directory is
the runtime's (`runtime/backends/export/saved_*.py`, format in docs/saving.md).
"""

from __future__ import annotations

import keyword
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from autograph.tracing.bound import BoundFunction
from autograph.tracing.concrete import ConcreteFunction, Static
from autograph.tracing.function import Function
from autograph.tracing.keys import Identity, is_variable
from autograph.tracing.spec import TensorSpec
from runtime.backends.export.loaded import LoadedConcreteFunction, LoadedFunction, LoadedObject
from runtime.backends.export.restored import RestoredVariable
from runtime.backends.export.saved_format import (
    ConstLeaf,
    LoadError,
    Param,
    SaveError,
    TensorLeaf,
    TracedFunction,
    VariableLeaf,
)
from runtime.backends.export.saved_read import read
from runtime.backends.export.saved_write import write
from runtime.tracing.variables import Variable

__all__ = [
    "save", "load", "SaveError", "LoadError", "LoadedObject", "LoadedFunction", "LoadedConcreteFunction",
    "RestoredVariable",
]


def save(obj: Any, path: str | os.PathLike, signatures: Any = None) -> Path:
    """Write `obj` (a Function, or an object whose attributes are Functions and Variables) to
    the directory `path`: its concrete functions as graphs, its Variables' values.

    `signatures` chooses what is saved instead of every concrete function traced so far:
    a ConcreteFunction, a list of them, or a dict from attribute name to a ConcreteFunction,
    a list of them or a Function.
    """
    functions: dict[str, list[ConcreteFunction]] = {}
    variables: dict[str, Any] = {}
    callable_name = None
    if signatures is not None:
        functions = _chosen(signatures, obj)
        if len(functions) == 1 and _as_function(obj) is not None:
            callable_name = next(iter(functions))
    elif _as_function(obj) is not None:
        function = _as_function(obj)
        callable_name = function._name
        functions[callable_name] = _traces(function, callable_name)
    elif isinstance(obj, ConcreteFunction):
        callable_name = obj.name
        functions[obj.name] = [obj]
    else:
        for name, value in _attributes(obj):
            function = _as_function(value)
            if function is not None:
                functions[name] = _traces(function, name)
            elif isinstance(value, Variable):
                variables[name] = value
        if not functions:
            raise SaveError(
                f"{type(obj).__name__} object has no ag.function attributes to save; pass a Function, or "
                f"an object whose attributes are Functions (and Variables)."
            )
    names = {name: _attribute_name(name, set(functions)) for name in functions}
    owners = _owners(obj, signatures)
    described = {names[name]: [_describe(cf, owners) for cf in group] for name, group in functions.items()}
    return write(path, described, variables, names.get(callable_name) if callable_name else None)


def _attribute_name(name: str, taken: set[str]) -> str:
    """A function's name as an attribute of the loaded object (`<lambda>` becomes `lambda_`)."""
    if name.isidentifier() and not name.startswith("_") and not keyword.iskeyword(name):
        return name
    cleaned = re.sub(r"\W", "_", name).strip("_") or "function"
    cleaned = cleaned if not cleaned[0].isdigit() else f"f_{cleaned}"
    cleaned += "_" if keyword.iskeyword(cleaned) or cleaned in taken else ""
    return cleaned


def load(path: str | os.PathLike, backend: str = "numpy") -> LoadedObject:
    """The object saved in the directory `path` (see `save`), its graphs run by `backend`."""
    return read(path, backend=backend)


def _as_function(value: Any) -> Function | None:
    if isinstance(value, BoundFunction):
        value = value.__func__
    return value if isinstance(value, Function) else None


def _attributes(obj: Any) -> list[tuple[str, Any]]:
    """Public attributes: the instance's own, then methods made ag.functions on its class."""
    found: dict[str, Any] = {}
    for name, value in vars(obj).items() if hasattr(obj, "__dict__") else ():
        if not name.startswith("_"):
            found[name] = value
    for klass in type(obj).__mro__:
        for name, value in vars(klass).items():
            if not name.startswith("_") and name not in found and isinstance(value, Function):
                found[name] = getattr(obj, name)
    return list(found.items())


def _traces(function: Function, name: str) -> list[ConcreteFunction]:
    if not function._traces and function._raw_input_signature is not None:
        function.get_concrete_function()
    if not function._traces:
        raise SaveError(
            f"the Function {name!r} has not been traced yet, so it has no graph to save; call it (or "
            f"get_concrete_function with TensorSpecs) for each signature to save first, or give it an "
            f"input_signature."
        )
    return list(function._traces)


def _chosen(signatures: Any, obj: Any) -> dict[str, list[ConcreteFunction]]:
    if isinstance(signatures, ConcreteFunction):
        return {signatures.name: [signatures]}
    if isinstance(signatures, Sequence) and not isinstance(signatures, str):
        groups: dict[str, list[ConcreteFunction]] = {}
        for cf in signatures:
            if not isinstance(cf, ConcreteFunction):
                raise SaveError(f"signatures holds a {type(cf).__name__}; give ConcreteFunctions.")
            groups.setdefault(cf.name, []).append(cf)
        return groups
    if isinstance(signatures, Mapping):
        groups = {}
        for name, value in signatures.items():
            function = _as_function(value)
            if function is not None:
                groups[name] = _traces(function, name)
            elif isinstance(value, ConcreteFunction):
                groups[name] = [value]
            else:
                groups[name] = list(_chosen(list(value), obj).values())[0] if value else []
            if not groups[name]:
                raise SaveError(f"signatures[{name!r}] holds no concrete function.")
        return groups
    raise SaveError(
        f"signatures is a {type(signatures).__name__}; give a ConcreteFunction, a list of them, or a "
        f"dict from name to ConcreteFunction(s)."
    )


def _owners(obj: Any, signatures: Any) -> list[Function]:
    """The Functions whose traces may be saved: their type hints go with the traces."""
    values = [obj, *(signatures.values() if isinstance(signatures, Mapping) else ())]
    values += [value for _, value in _attributes(obj)] if _as_function(obj) is None and not isinstance(
        obj, ConcreteFunction) else []
    return [f for f in map(_as_function, values) if f is not None]


def _describe(cf: ConcreteFunction, owners: Sequence[Function] = ()) -> TracedFunction:
    """A concrete function in the runtime's terms (no converter objects left in it)."""
    hinted = next((f._hinted for f in owners if any(t is cf for t in f._traces)), ())
    params = tuple(Param(p.name, p.kind.name, p.default, i in hinted) for i, p in enumerate(cf.signature.params))
    inputs = iter(cf.graph.inputs)
    in_plan = []
    for part in cf.in_plan:
        if isinstance(part, TensorSpec):
            in_plan.append(TensorLeaf(part.type, next(inputs).name))
        elif type(part) is Identity:
            obj = part.ref()
            if obj is None or not is_variable(obj) or not isinstance(obj, Variable):
                raise SaveError(
                    f"{cf.name} was traced for a Python object of type {type(obj).__name__} as an argument; a "
                    f"saved graph holds no Python objects. Save traces made for arrays, numbers and Variables."
                )
            in_plan.append(VariableLeaf(obj))
        else:
            in_plan.append(ConstLeaf(part[1]))
    out_plan = tuple(ConstLeaf(p.value) if isinstance(p, Static) else p for p in cf.out_plan)
    return TracedFunction(cf.name, params, cf.graph, cf.in_tree, tuple(in_plan), cf.out_tree, out_plan)
