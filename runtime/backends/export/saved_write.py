"""Writing a saved directory: functions, graphs and values encoded as tagged JSON and .npz arrays.

`write` encodes each `TracedFunction` (saved_format.py) with its parameters,
argument and result structures and graph; every attribute value takes one of
a fixed set of tagged JSON forms (`{"float": "0.5"}`, `{"array": "a3"}`,
...) that saved_decode.py reads back, and anything else (a py_function, an
arbitrary object) is a `SaveError` naming the user's line. Arrays go to
arrays.npz, Variable values to variables.npz, and the manifest records each
file's size and hash.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from runtime.backends.export.saved_format import (
    ARRAYS_FILE,
    DATA_FILES,
    DTYPE_KINDS,
    FORMAT,
    GRAPH_FILE,
    MANIFEST_FILE,
    NAMEDTUPLE_VERSION,
    VARIABLE_OPS,
    VARIABLES_FILE,
    SaveError,
    TensorLeaf,
    TracedFunction,
    VariableLeaf,
)
from runtime.ir.graph import Graph, Node
from runtime.ir.origin import Origin
from runtime.ir.structure import TreeDef
from runtime.ops import effects as ops_effects
from runtime.ops.calls import Slot, Span, Weak

__all__ = ["write", "collect_variables"]


def collect_variables(graphs: Sequence[Graph]) -> list[Any]:
    """The Variables the graphs (and their subgraphs) read or write, each once, in first-use order."""
    found: dict[int, Any] = {}

    def walk(graph: Graph) -> None:
        for node in graph.nodes:
            if node.op in VARIABLE_OPS:
                variable = node.attrs["ref"]()
                if variable is None:
                    raise SaveError(
                        f"{_at(node)}the Variable {node.attrs['name']!r} this graph uses no longer exists; "
                        f"keep it alive (e.g. as an attribute) until the function is saved."
                    )
                found.setdefault(id(variable), variable)
            for value in node.attrs.values():
                if isinstance(value, Graph):
                    walk(value)

    for graph in graphs:
        walk(graph)
    return list(found.values())


# -- writing -------------------------------------------------------------------------------
def write(
    path: str | os.PathLike, functions: Mapping[str, Sequence[TracedFunction]],
    variables: Mapping[str, Any] | None = None, callable_name: str | None = None,
) -> Path:
    """Save `functions` (attribute name -> its concrete functions) and the Variables they use
    (`variables` names some of them, and any others, as attributes) into the directory `path`."""
    effects = ops_effects
    writer = _Writer(effects)
    graphs = [traced.graph for group in functions.values() for traced in group]
    named = dict(variables or {})
    used = collect_variables(graphs)
    for variable in [*used, *named.values()]:
        writer.variable_index(variable)
    document = {
        "format": FORMAT,
        "version": 1,
        "callable": callable_name,
        "functions": {name: [writer.function(t) for t in group] for name, group in functions.items()},
        "variables": [writer.variable_entry(i, v) for i, v in enumerate(writer.variables)],
        "attributes": {name: writer.variable_index(v) for name, v in named.items()},
    }
    document["version"] = writer.version  # the oldest version that reads this file
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=1, allow_nan=False, ensure_ascii=True)
    (directory / GRAPH_FILE).write_text(text + "\n", encoding="utf-8")
    np.savez(directory / ARRAYS_FILE, **writer.arrays)
    np.savez(directory / VARIABLES_FILE, **writer.variable_values)
    manifest = {
        "format": FORMAT,
        "version": writer.version,
        "files": {name: _file_facts(directory / name) for name in DATA_FILES},
    }
    (directory / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return directory


def _file_facts(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _at(node: Node) -> str:
    return f"{node.origin}: " if node.origin is not None else ""


class _Writer:
    """Encodes functions, graphs and attribute values as tagged JSON; arrays go to `arrays`."""

    def __init__(self, effects: Any) -> None:
        self.effects = effects
        self.arrays: dict[str, np.ndarray] = {}
        self.version = 1  # raised by the features a file uses (saved_format.VERSION)
        self.variables: list[Any] = []
        self.variable_values: dict[str, np.ndarray] = {}
        self._indexes: dict[int, int] = {}
        self._node: Node | None = None  # the node whose attributes are being written

    def variable_index(self, variable: Any) -> int:
        index = self._indexes.get(id(variable))
        if index is None:
            index = self._indexes[id(variable)] = len(self.variables)
            self.variables.append(variable)
        return index

    def variable_entry(self, index: int, variable: Any) -> dict[str, Any]:
        value = variable._value
        entry = {"name": str(variable.name), "type": _type_json(variable._type), "initialized": value is not None}
        if value is not None:
            self.variable_values[f"v{index}"] = np.asarray(value, dtype=variable.dtype)
        return entry

    def function(self, traced: TracedFunction) -> dict[str, Any]:
        self._node = None
        params = []
        for param in traced.params:
            entry: dict[str, Any] = {"name": param.name, "kind": param.kind}
            if param.tensor:
                entry["tensor"] = True
            if param.default is not inspect.Parameter.empty:
                try:
                    entry["default"] = self.value(param.default)
                except SaveError:
                    pass  # a default no file can hold: the loaded function needs the argument passed
            params.append(entry)
        return {
            "name": traced.name,
            "params": params,
            "inputs": {"tree": self.tree(traced.in_tree, traced.name),
                       "plan": [self.in_leaf(leaf, traced) for leaf in traced.in_plan]},
            "outputs": {"tree": self.tree(traced.out_tree, traced.name),
                        "plan": [self.out_leaf(leaf, traced) for leaf in traced.out_plan]},
            "graph": self.graph(traced.graph),
        }

    def in_leaf(self, leaf: Any, traced: TracedFunction) -> dict[str, Any]:
        if isinstance(leaf, TensorLeaf):
            return {"tensor": _type_json(leaf.type), "name": leaf.name}
        if isinstance(leaf, VariableLeaf):
            return {"variable": self.variable_index(leaf.variable)}
        try:
            return {"python": self.value(leaf.value)}
        except SaveError:
            raise SaveError(
                f"{traced.name} was traced for an argument of type {type(leaf.value).__name__}, which a "
                f"saved graph cannot hold; save traces made for arrays, Python numbers, strings and "
                f"None (and tuples, lists and dicts of them)."
            ) from None

    def out_leaf(self, leaf: Any, traced: TracedFunction) -> Any:
        if isinstance(leaf, int):
            return leaf
        try:
            return {"static": self.value(leaf.value)}
        except SaveError:
            raise SaveError(
                f"{traced.name} returns a Python object of type {type(leaf.value).__name__}, which a "
                f"saved graph cannot hold; return tensors, numbers or strings."
            ) from None

    def tree(self, tree: TreeDef, where: str) -> dict[str, Any]:
        if tree.kind == "dataclass":
            raise SaveError(
                f"{where} takes or returns a {tree.data[0].__name__} (a dataclass), whose class a saved graph "
                f"cannot hold: it holds no Python code, and a dataclass is not rebuilt from its field names "
                f"alone (its methods, defaults and checks are code). Use a namedtuple, tuple or dict in the "
                f"saved function's arguments and results."
            )
        if tree.kind not in ("leaf", "list", "tuple", "dict", "namedtuple"):
            raise SaveError(f"{where}: a structure of kind {tree.kind!r} cannot be saved")
        entry: dict[str, Any] = {"kind": tree.kind}
        if tree.kind == "namedtuple":
            # only the name and fields: load recreates a plain namedtuple type (no methods)
            entry["name"] = tree.data.__name__
            entry["fields"] = list(tree.data._fields)
            for text in (entry["name"], *entry["fields"]):
                if not text.isidentifier() or not text.isascii():
                    raise SaveError(f"{where}: the namedtuple {entry['name']!r} has the non-ASCII name {text!r}; "
                                    f"a saved graph holds ASCII identifiers only.")
            self.version = max(self.version, NAMEDTUPLE_VERSION)
        if tree.children:
            entry["children"] = [self.tree(child, where) for child in tree.children]
        if tree.kind == "dict":
            entry["keys"] = [self.value(key) for key in tree.data]
            if tree.order is not None:
                entry["order"] = [self.value(key) for key in tree.order]
        return entry

    def graph(self, graph: Graph) -> dict[str, Any]:
        nodes = []
        for node in graph.nodes:
            entry: dict[str, Any] = {"name": node.name, "op": node.op}
            if node.inputs:
                entry["inputs"] = node.inputs_names
            if node.op == "py_function":
                func = node.attrs.get("func")
                what = getattr(func, "__qualname__", type(func).__name__)
                raise SaveError(
                    f"{_at(node)}ag.py_function({what}, ...) runs Python code, which a saved graph cannot "
                    f"hold; compute this with NumPy operations inside the function, or keep the Function "
                    f"in Python instead of saving it."
                )
            if node.op == "capture":
                entry["outer"] = node.attrs["outer"].name
            elif node.attrs:
                self._node = node
                entry["attrs"] = {key: self.value(value) for key, value in node.attrs.items()}
                self._node = None
            entry["type"] = _type_json(node.type)
            if node.origin is not None:
                entry["origin"] = _origin_json(node.origin)
            nodes.append(entry)
        return {
            "name": graph.name,
            "nodes": nodes,
            "inputs": [n.name for n in graph.inputs],
            "outputs": [n.name for n in graph.outputs],
        }

    def value(self, value: Any) -> Any:
        """The tagged JSON form of one attribute or argument value."""
        kind = type(value)
        if value is None or kind is bool or kind is str:
            return value
        if kind is int:
            return value
        if kind is float:
            return {"float": repr(value)}
        if kind is complex:
            return {"complex": [repr(value.real), repr(value.imag)]}
        if isinstance(value, np.generic):
            return {"scalar": self.array(np.asarray(value))}
        if isinstance(value, np.ndarray):
            return {"array": self.array(value)}
        if kind is tuple:
            return {"tuple": [self.value(v) for v in value]}
        if kind is list:
            return {"list": [self.value(v) for v in value]}
        if kind is dict:
            return {"dict": [[self.value(k), self.value(v)] for k, v in value.items()]}
        if kind is Slot:
            return {"slot": value.index}
        if kind is Weak:
            return {"weak": self.value(value.value)}
        if kind is Span:
            return {"span": [self.value(value.start), self.value(value.stop), self.value(value.step)]}
        if kind is slice:
            return {"slice": [self.value(value.start), self.value(value.stop), self.value(value.step)]}
        if value is Ellipsis:
            return {"ellipsis": None}
        if kind is bytes:
            return {"bytes": value.hex()}
        if isinstance(value, np.dtype) or (isinstance(value, type) and _dtype_like(value)):
            return {"dtype": _dtype_json(np.dtype(value), self._node)}
        if isinstance(value, Graph):
            return {"graph": self.graph(value)}
        if kind is Origin:
            return {"origin": _origin_json(value)}
        if isinstance(value, weakref.ref) and self._node is not None and self._node.op in VARIABLE_OPS:
            return {"variable": self.variable_index(value())}
        if kind is TreeDef:
            return {"tree": self.tree(value, str(self._node.origin) if self._node else "a value")}
        if kind is self.effects.Shown:
            return {"shown": {"tree": self.value(value.tree), "parts": [self.value(p) for p in value.parts]}}
        if value is self.effects.SLOT:
            return {"shown_slot": None}
        raise self.refused(value)

    def refused(self, value: Any) -> SaveError:
        node = self._node
        if node is None:
            return SaveError(f"a value of type {type(value).__name__} ({value!r:.80}) cannot be saved")
        key = next((k for k, v in node.attrs.items() if _holds(v, value)), "?")
        return SaveError(
            f"{_at(node)}the {node.op!r} operation here holds {key}={value!r:.80} (a "
            f"{type(value).__name__}), which a saved graph cannot store: it keeps only arrays, numbers, "
            f"strings, dtypes, slices and tuples of them. Pass such a value, or leave it out of the "
            f"function that is saved."
        )

    def array(self, array: np.ndarray) -> str:
        if array.dtype.hasobject or array.dtype.kind not in DTYPE_KINDS - {"O"}:
            raise self.refused(array)
        key = f"a{len(self.arrays)}"
        self.arrays[key] = array
        return key


def _holds(container: Any, value: Any) -> bool:
    if container is value:
        return True
    if isinstance(container, (tuple, list)):
        return any(_holds(v, value) for v in container)
    return False


def _dtype_like(value: type) -> bool:
    try:
        np.dtype(value)
    except TypeError:
        return False
    return True


def _dtype_json(dtype: np.dtype, node: Node | None = None) -> str:
    if dtype.kind not in DTYPE_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        where = _at(node) if node is not None else ""
        raise SaveError(f"{where}the dtype {dtype} cannot be saved; use numeric, bool or string dtypes.")
    return dtype.str


def _type_json(type_: Any) -> Any:
    if isinstance(type_, tuple):
        return {"types": [_type_json(t) for t in type_]}
    shape = None if type_.shape is None else list(type_.shape)
    return {"dtype": _dtype_json(type_.dtype), "shape": shape}


def _origin_json(origin: Origin) -> dict[str, Any]:
    return {"file": origin.file, "line": origin.line, "text": origin.text, "function": origin.function,
            "col": origin.col}
