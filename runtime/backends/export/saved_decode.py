"""Decoding saved_graph.json: functions, graphs and values rebuilt from their tagged JSON forms.

The `Decoder` reads what saved_write.py wrote and trusts nothing: every name
must be an identifier, every op a registered one, every node reference one
defined before, every value one of the fixed tagged forms, every array one
arrays.npz holds; each node then passes saved_checks.py. It builds the
`RestoredVariable`s and `LoadedFunction`s of the `LoadedObject` that
saved_read.read returns.
"""

from __future__ import annotations

import collections
import inspect
import keyword
import re
import warnings
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

import runtime.ops  # noqa: F401  registers every op a saved graph may name
from runtime.backends.export.loaded import (
    LoadedConcreteFunction,
    LoadedFunction,
    LoadedObject,
    Runner,
)
from runtime.backends.export.restored import RestoredVariable
from runtime.backends.export.saved_checks import Malformed, check_node
from runtime.backends.export.saved_format import (
    ARRAYS_FILE,
    DTYPE_KINDS,
    GRAPH_FILE,
    NAMEDTUPLE_VERSION,
    PARAMETER_KINDS,
    STRUCTURAL_OPS,
    TENSOR_HINT,
    VARIABLES_FILE,
    ConstLeaf,
    LoadError,
    TensorLeaf,
    VariableLeaf,
)
from runtime.ir.graph import Graph, Node
from runtime.ir.names import Namespace
from runtime.ir.origin import Origin
from runtime.ir.structure import LEAF, TreeDef
from runtime.ir.types import TensorType
from runtime.ops.calls import Slot, Span, Weak
from runtime.ops.registry import OPS

__all__ = ["Decoder"]


class Decoder:
    """Decodes the tagged JSON `write` produced, checking every value it reads."""

    def __init__(self, directory: Path, effects: Any, arrays: Mapping, values: Mapping, runner: Runner) -> None:
        self.directory = directory
        self.effects = effects
        self.arrays = arrays
        self.values = values
        self.runner = runner
        self.variables: list[RestoredVariable] = []
        self._used_arrays: set[str] = set()
        self._namedtuples: dict[tuple, type] = {}
        self.version = 1

    def root(self, document: dict) -> LoadedObject:
        try:
            return self._root(document)
        except Malformed as problem:
            raise LoadError(
                f"{self.directory / GRAPH_FILE}: {problem}. The file is damaged or was altered; save it again."
            ) from None
        except (KeyError, TypeError, IndexError, AttributeError, ValueError, RecursionError) as error:
            if isinstance(error, LoadError):
                raise
            raise LoadError(
                f"{self.directory / GRAPH_FILE} is malformed ({type(error).__name__}: {error}); it is "
                f"damaged or was altered. Save it again."
            ) from None

    def _root(self, document: dict) -> LoadedObject:
        self.version = document["version"]  # saved_read checked it is one this reader knows
        for index, entry in enumerate(_expect(document.get("variables"), list, "variables")):
            self.variables.append(self.variable(index, entry))
        loaded = LoadedObject()
        attributes = _expect(document.get("attributes", {}), dict, "attributes")
        for name, index in attributes.items():
            _check_attribute(name)
            setattr(loaded, name, self.variable_at(index))
        functions = _expect(document.get("functions"), dict, "functions")
        for name, group in functions.items():
            _check_attribute(name)
            concretes = [self.function(entry) for entry in _expect(group, list, f"functions[{name!r}]")]
            if not concretes:
                raise Malformed(f"function {name!r} has no concrete functions")
            setattr(loaded, name, LoadedFunction(name, concretes, tuple(self.variables)))
        callable_name = document.get("callable")
        if callable_name is not None:
            if callable_name not in functions:
                raise Malformed(f"the callable function {callable_name!r} is not one of the saved functions")
            object.__setattr__(loaded, "_callable", getattr(loaded, callable_name))
        object.__setattr__(loaded, "_variables", tuple(self.variables))
        return loaded

    def variable(self, index: int, entry: dict) -> RestoredVariable:
        name = _expect(entry["name"], str, "a variable's name")
        type_ = self.type(entry["type"])
        if not isinstance(type_, TensorType) or not type_.is_fully_defined:
            raise Malformed(f"variable {name!r} has no fixed shape")
        value = None
        if _expect(entry["initialized"], bool, "initialized"):
            key = f"v{index}"
            if key not in self.values:
                raise Malformed(f"the value of variable {name!r} is missing from {VARIABLES_FILE}")
            value = self.values[key]
            if value.dtype != type_.dtype or value.shape != type_.shape:
                raise Malformed(f"the value of variable {name!r} is {value.dtype}{list(value.shape)}, not {type_}")
        return RestoredVariable(name, type_, value)

    def variable_at(self, index: Any) -> RestoredVariable:
        if type(index) is not int or not 0 <= index < len(self.variables):
            raise Malformed(f"a reference to variable {index!r}, which is not saved")
        return self.variables[index]

    def function(self, entry: dict) -> LoadedConcreteFunction:
        name = _expect(entry["name"], str, "a function's name")
        params = []
        for param in _expect(entry["params"], list, "params"):
            kind = PARAMETER_KINDS.get(param["kind"])
            if kind is None:
                raise Malformed(f"function {name!r} has a parameter of unknown kind {param['kind']!r}")
            default = self.value(param["default"]) if "default" in param else inspect.Parameter.empty
            tensor = param.get("tensor", False)
            if type(tensor) is not bool:
                raise Malformed(f"function {name!r}: a parameter's 'tensor' is {tensor!r}, not true or false")
            annotation = TENSOR_HINT if tensor else inspect.Parameter.empty
            params.append(inspect.Parameter(_identifier(param["name"]), kind, default=default, annotation=annotation))
        signature = inspect.Signature(params)
        in_tree = self.tree(entry["inputs"]["tree"])
        in_plan = tuple(self.in_leaf(leaf) for leaf in _expect(entry["inputs"]["plan"], list, "plan"))
        out_tree = self.tree(entry["outputs"]["tree"])
        out_plan = tuple(self.out_leaf(leaf) for leaf in _expect(entry["outputs"]["plan"], list, "plan"))
        graph = self.graph(entry["graph"], None, None)
        if in_tree.num_leaves != len(in_plan) or out_tree.num_leaves != len(out_plan):
            raise Malformed(f"function {name!r}: its structures and plans disagree in length")
        if in_tree.kind != "tuple" or len(in_tree.children) != len(params):
            raise Malformed(f"function {name!r}: its arguments do not match its {len(params)} parameters")
        tensors = [leaf for leaf in in_plan if isinstance(leaf, TensorLeaf)]
        if len(tensors) != len(graph.inputs) or any(
            leaf.type != node.type for leaf, node in zip(tensors, graph.inputs)
        ):
            raise Malformed(f"function {name!r}: its tensor arguments do not match its graph's inputs")
        if any(isinstance(p, int) and not 0 <= p < len(graph.outputs) for p in out_plan):
            raise Malformed(f"function {name!r} returns an output its graph does not have")
        return LoadedConcreteFunction(name, signature, graph, in_tree, in_plan, out_tree, out_plan, self.runner)

    def in_leaf(self, entry: dict) -> Any:
        if "tensor" in entry:
            type_ = self.type(entry["tensor"])
            if not isinstance(type_, TensorType):
                raise Malformed("an argument has a tuple type")
            return TensorLeaf(type_, _expect(entry["name"], str, "an input's name"))
        if "variable" in entry:
            return VariableLeaf(self.variable_at(entry["variable"]))
        if "python" in entry:
            return ConstLeaf(self.value(entry["python"]))
        raise Malformed(f"an argument entry of unknown form {sorted(entry)}")

    def out_leaf(self, entry: Any) -> Any:
        if type(entry) is int:
            return entry
        if isinstance(entry, dict) and set(entry) == {"static"}:
            return ConstLeaf(self.value(entry["static"]))
        raise Malformed(f"a result entry of unknown form {entry!r:.60}")

    def tree(self, entry: dict) -> TreeDef:
        kind = entry["kind"]
        children = tuple(self.tree(child) for child in _expect(entry.get("children", []), list, "children"))
        if kind == "leaf":
            if children:
                raise Malformed("a leaf with children")
            return LEAF
        if kind in ("list", "tuple"):
            return TreeDef(kind, None, children)
        if kind == "dict":
            keys = tuple(self.value(k) for k in _expect(entry["keys"], list, "keys"))
            order = tuple(self.value(k) for k in entry["order"]) if "order" in entry else None
            if len(keys) != len(children) or (order is not None and sorted(map(repr, order)) != sorted(map(repr, keys))):
                raise Malformed("a dict structure whose keys and values disagree")
            return TreeDef("dict", keys, children, order)
        if kind == "namedtuple" and self.version >= NAMEDTUPLE_VERSION:
            return TreeDef(kind, self.namedtuple(entry["name"], entry["fields"], len(children)), children)
        raise Malformed(f"a structure of unknown kind {kind!r}")

    def namedtuple(self, name: Any, fields: Any, length: int) -> type:
        """A plain namedtuple type made from checked data (one per name and fields in a load)."""
        fields = tuple(_identifier(f) for f in _expect(fields, list, "a namedtuple's fields"))
        if keyword.iskeyword(_identifier(name)) or any(keyword.iskeyword(f) or f.startswith("_") for f in fields):
            raise Malformed(f"the namedtuple {name!r} has a keyword or a field starting with '_'")
        if len(set(fields)) != len(fields) or len(fields) != length:
            raise Malformed(f"the namedtuple {name!r} has repeated fields or not one per item")
        key = (name, fields)
        if key not in self._namedtuples:
            self._namedtuples[key] = collections.namedtuple(name, fields)
        return self._namedtuples[key]

    # -- graphs --------------------------------------------------------------------------
    def graph(self, entry: dict, parent: Graph | None, parent_nodes: dict[str, Node] | None) -> Graph:
        name = _expect(entry["name"], str, "a graph's name")  # any text: the compiler makes a name of it
        graph = Graph(name, parent)
        nodes: dict[str, Node] = {}
        for item in _expect(entry["nodes"], list, "nodes"):
            node = self.node(item, graph, nodes, parent_nodes)
            nodes[node.name] = node
            graph.nodes.append(node)
            if node.op == "capture":
                outer = node.attrs["outer"]
                if outer in graph.captures:
                    raise Malformed(f"graph {name!r} captures {outer.name!r} twice")
                graph.captures[outer] = node
        graph.inputs = [self.named(nodes, n, name) for n in _expect(entry["inputs"], list, "inputs")]
        if [n for n in graph.nodes if n.op == "input"] != graph.inputs:
            raise Malformed(f"graph {name!r}: its inputs list does not match its input nodes")
        graph.outputs = [self.named(nodes, n, name) for n in _expect(entry["outputs"], list, "outputs")]
        graph.namespace = Namespace(("np", *nodes))
        graph._ids = {id(node) for node in graph.nodes}
        return graph.finish()

    @staticmethod
    def named(nodes: dict[str, Node], name: Any, graph: str) -> Node:
        if type(name) is not str or name not in nodes:
            raise Malformed(f"graph {graph!r} refers to {name!r}, which is not one of its nodes defined before")
        return nodes[name]

    def node(self, item: dict, graph: Graph, nodes: dict[str, Node], parent_nodes: dict[str, Node] | None) -> Node:
        name = _identifier(item["name"])
        if name in nodes:
            raise Malformed(f"graph {graph.name!r} has two nodes named {name!r}")
        op = item["op"]
        if type(op) is not str or (op not in OPS and op not in STRUCTURAL_OPS):
            raise Malformed(f"node {name!r} uses the op {op!r}, which this autograph does not have")
        if op == "py_function":
            raise Malformed(f"node {name!r} is a py_function, which a saved graph never holds")
        inputs = tuple(self.named(nodes, n, graph.name) for n in _expect(item.get("inputs", []), list, "inputs"))
        type_ = self.type(item["type"])
        origin = self.origin(item["origin"]) if "origin" in item else None
        if op == "capture":
            if parent_nodes is None:
                raise Malformed(f"node {name!r} captures a value, but graph {graph.name!r} is not nested")
            attrs = {"outer": self.named(parent_nodes, item["outer"], f"enclosing {graph.name}")}
            if attrs["outer"].type != type_:
                raise Malformed(f"capture {name!r} has another type than the value it captures")
        else:
            attrs = {}
            for key, value in _expect(item.get("attrs", {}), dict, "attrs").items():
                attrs[_expect(key, str, "an attribute name")] = self.value(value, graph, nodes)
        if op in ("input", "capture", "constant") and inputs:
            raise Malformed(f"node {name!r} ({op}) has inputs")
        node = Node(name, op, inputs, attrs, type_, origin)
        check_node(node)
        return node


    def type(self, entry: Any) -> TensorType | tuple[TensorType, ...]:
        if isinstance(entry, dict) and set(entry) == {"types"}:
            return tuple(self.type(t) for t in _expect(entry["types"], list, "types"))  # type: ignore[misc]
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape"}:
            raise Malformed(f"a type of unknown form {entry!r:.60}")
        shape = entry["shape"]
        if shape is not None:
            shape = tuple(_expect(shape, list, "a shape"))
            if any(d is not None and (type(d) is not int or d < 0) for d in shape):
                raise Malformed(f"a shape with an invalid dimension: {list(shape)}")
        return TensorType(self.dtype(entry["dtype"]), shape)

    @staticmethod
    def dtype(text: Any) -> np.dtype:
        """The dtype written as `text`, which must be exactly what the writer writes: NumPy's
        `dtype.str` in native byte order ('<f8', '|b1', '<U5'). Aliases NumPy also reads
        ('f8', '=f8', 'a', 'd') are refused: no writer makes them, and some are deprecated."""
        if type(text) is not str or not re.fullmatch(r"[<>|][a-zA-Z]\d*", text):
            raise Malformed(f"the dtype {text!r:.40} is not a dtype as saved (byte order, kind, size: '<f8')")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a deprecated alias is refused, not warned about
                dtype = np.dtype(text)
        except (TypeError, Warning):
            raise Malformed(f"the dtype {text!r} is not one NumPy knows (or knows only as a deprecated alias)") from None
        if dtype.str != text or not dtype.isnative:
            raise Malformed(f"the dtype {text!r} is not written as saved ({dtype.newbyteorder('=').str!r})")
        if dtype.kind not in DTYPE_KINDS:
            raise Malformed(f"the dtype {text!r} is not one a saved graph holds")
        return dtype

    @staticmethod
    def origin(entry: Any) -> Origin:
        if not isinstance(entry, dict):
            raise Malformed("an origin that is not an object")
        file = _expect(entry["file"], str, "an origin's file")
        line = _expect(entry["line"], int, "an origin's line")
        return Origin(file, line, _expect(entry.get("text", ""), str, "text"),
                      _expect(entry.get("function", ""), str, "function"), _expect(entry.get("col", 0), int, "col"))

    def array(self, key: Any) -> np.ndarray:
        if type(key) is not str or key not in self.arrays:
            raise Malformed(f"a reference to the array {key!r:.40}, which {ARRAYS_FILE} does not hold")
        return self.arrays[key]

    def value(self, entry: Any, graph: Graph | None = None, nodes: dict | None = None) -> Any:
        """One value from its tagged form; anything not of a known form is an error."""
        kind = type(entry)
        if entry is None or kind is bool or kind is str or kind is int:
            return entry
        if kind is list:
            raise Malformed("an untagged list")
        if kind is not dict or len(entry) != 1:
            raise Malformed(f"a value of unknown form {entry!r:.60}")
        (tag, data), = entry.items()
        if tag == "float":
            return _float(data)
        if tag == "complex":
            re_, im = _expect(data, list, "complex")
            return complex(_float(re_), _float(im))
        if tag == "scalar":
            array = self.array(data)
            if array.ndim != 0:
                raise Malformed("a scalar stored as an array of rank > 0")
            return array[()]
        if tag == "array":
            return self.array(data)
        if tag == "tuple":
            return tuple(self.value(v, graph, nodes) for v in _expect(data, list, "tuple"))
        if tag == "list":
            return [self.value(v, graph, nodes) for v in _expect(data, list, "list")]
        if tag == "dict":
            return {self.value(k): self.value(v, graph, nodes) for k, v in _expect(data, list, "dict")}
        if tag == "slot":
            return Slot(_expect(data, int, "a slot"))
        if tag == "weak":
            value = self.value(data)
            if type(value) not in (bool, int, float, complex):
                raise Malformed(f"a Python scalar of type {type(value).__name__}")
            return Weak(value)
        if tag == "span":
            start, stop, step = (self.value(v) for v in _expect(data, list, "span"))
            return Span(start, stop, step)
        if tag == "slice":
            start, stop, step = (self.value(v) for v in _expect(data, list, "slice"))
            return slice(start, stop, step)
        if tag == "ellipsis":
            return Ellipsis
        if tag == "bytes":
            return bytes.fromhex(_expect(data, str, "bytes"))
        if tag == "dtype":
            return self.dtype(data)
        if tag == "graph":
            if graph is None:
                raise Malformed("a subgraph outside of a node")
            return self.graph(data, graph, nodes)
        if tag == "origin":
            return self.origin(data)
        if tag == "variable":
            return weakref.ref(self.variable_at(data))
        if tag == "tree":
            return self.tree(data)
        if tag == "shown":
            tree = self.value(data["tree"])
            if type(tree) is not TreeDef:
                raise Malformed("a shown structure without a structure")
            parts = tuple(self.value(p) for p in _expect(data["parts"], list, "parts"))
            if len(parts) != tree.num_leaves:
                raise Malformed("a shown structure whose parts do not fit it")
            return self.effects.Shown(tree, parts)
        if tag == "shown_slot":
            return self.effects.SLOT
        raise Malformed(f"a value tagged {tag!r}, which this format does not have")


def _expect(value: Any, kind: type, what: str) -> Any:
    if type(value) is not kind:
        raise Malformed(f"{what} should be a {kind.__name__}, not {type(value).__name__}")
    return value


def _float(text: Any) -> float:
    if type(text) is not str or not re.fullmatch(r"-?(inf|nan|\d+(\.\d*)?(e[-+]?\d+)?|\d*\.\d+(e[-+]?\d+)?)", text):
        raise Malformed(f"the float {text!r:.40} is not a number")
    return float(text)


def _identifier(name: Any) -> str:
    if type(name) is not str or not name.isidentifier() or not name.isascii():
        raise Malformed(f"the name {name!r:.40} is not a Python identifier")
    return name


def _check_attribute(name: Any) -> None:
    _identifier(name)
    if name.startswith("_"):
        raise Malformed(f"the attribute name {name!r} is private")
