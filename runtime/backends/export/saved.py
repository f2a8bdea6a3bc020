"""Saved graphs: traced functions and their Variables as a directory of data.

A saved directory holds no Python code and nothing pickled:

    manifest.json      format name and version, and the size and sha256 of every other file
    saved_graph.json   the functions: parameters, input/output structure, graphs (docs/saving.md)
    arrays.npz         constants of the graphs (NumPy arrays, read with allow_pickle=False)
    variables.npz      the Variables' values (likewise)

`write` takes functions described without the converter (`TracedFunction`),
`read` rebuilds them as `LoadedFunction`s (loaded.py) that run on a backend. Reading
checks before it builds: the manifest's format and version, each file's size
and hash, every op name against the op registry, every node reference, name,
type and attribute. Graphs run through the same compiler a live trace uses,
so a loaded function computes exactly what the saved one did. Reading never
runs code from the files: they hold only data, every value is decoded from
a fixed set of tagged JSON forms, and the code the compiler generates names
only registered ops.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import runtime.ops  # noqa: F401  registers every op a saved graph may name
from runtime.backends.export.loaded import (
    ConstLeaf,
    LoadedConcreteFunction,
    LoadedFunction,
    LoadedObject,
    RestoredVariable,
    Runner,
    TensorLeaf,
    VariableLeaf,
)
from runtime.ir.errors import AutographError
from runtime.ir.graph import Graph, Node
from runtime.ir.names import Namespace
from runtime.ir.origin import Origin
from runtime.ir.structure import LEAF, TreeDef
from runtime.ir.types import TensorType
from runtime.ops import effects as ops_effects
from runtime.ops.calls import Slot, Span, Weak
from runtime.ops.registry import OPS

__all__ = [
    "FORMAT", "VERSION", "SaveError", "LoadError", "TracedFunction", "TensorLeaf", "ConstLeaf",
    "VariableLeaf", "Param", "write", "read", "LoadedObject", "LoadedFunction", "LoadedConcreteFunction",
    "RestoredVariable", "register_runner", "collect_variables",
]

FORMAT = "autograph.saved_graph"
VERSION = 1
MANIFEST_FILE = "manifest.json"
GRAPH_FILE = "saved_graph.json"
ARRAYS_FILE = "arrays.npz"
VARIABLES_FILE = "variables.npz"
_DATA_FILES = (GRAPH_FILE, ARRAYS_FILE, VARIABLES_FILE)
_STRUCTURAL = frozenset({"input", "capture", "constant"})
# ops whose type is set by the code that stages them (their `infer` refuses to run)
_TYPED_BY_CALLER = frozenset({"cond", "while", "ta_new", "ta_write", "ta_unstack", "ta_read", "ta_stack",
                              "ta_size", "py_function"})
_VARIABLE_OPS = frozenset({"read_variable", "assign_variable", "initialize_variable"})
_DTYPE_KINDS = frozenset("biufcUSO")
_KINDS = {
    "POSITIONAL_ONLY": inspect.Parameter.POSITIONAL_ONLY,
    "POSITIONAL_OR_KEYWORD": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "VAR_POSITIONAL": inspect.Parameter.VAR_POSITIONAL,
    "KEYWORD_ONLY": inspect.Parameter.KEYWORD_ONLY,
    "VAR_KEYWORD": inspect.Parameter.VAR_KEYWORD,
}


class SaveError(AutographError, ValueError):
    """Something a traced function holds cannot be written as data (a py_function, an object)."""


class LoadError(AutographError, ValueError):
    """A saved directory that is missing, damaged, altered, or of a format this version cannot read."""


# -- what is saved -------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # an inspect.Parameter kind's name
    default: Any = inspect.Parameter.empty


@dataclass
class TracedFunction:
    """One concrete function, described without the converter that traced it."""

    name: str
    params: tuple[Param, ...]
    graph: Graph
    in_tree: TreeDef
    in_plan: tuple  # per argument leaf: TensorLeaf, ConstLeaf or VariableLeaf
    out_tree: TreeDef
    out_plan: tuple  # per returned leaf: an index into the graph's outputs, or a ConstLeaf


def collect_variables(graphs: Sequence[Graph]) -> list[Any]:
    """The Variables the graphs (and their subgraphs) read or write, each once, in first-use order."""
    found: dict[int, Any] = {}

    def walk(graph: Graph) -> None:
        for node in graph.nodes:
            if node.op in _VARIABLE_OPS:
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
        "version": VERSION,
        "callable": callable_name,
        "functions": {name: [writer.function(t) for t in group] for name, group in functions.items()},
        "variables": [writer.variable_entry(i, v) for i, v in enumerate(writer.variables)],
        "attributes": {name: writer.variable_index(v) for name, v in named.items()},
    }
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=1, allow_nan=False, ensure_ascii=True)
    (directory / GRAPH_FILE).write_text(text + "\n", encoding="utf-8")
    np.savez(directory / ARRAYS_FILE, **writer.arrays)
    np.savez(directory / VARIABLES_FILE, **writer.variable_values)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "files": {name: _file_facts(directory / name) for name in _DATA_FILES},
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
        if tree.kind in ("namedtuple", "dataclass"):
            name = (tree.data if tree.kind == "namedtuple" else tree.data[0]).__name__
            raise SaveError(
                f"{where} takes or returns a {name} ({tree.kind}), whose class a saved graph cannot hold "
                f"(it holds no Python code); use tuples or dicts in the saved function's arguments and results."
            )
        if tree.kind not in ("leaf", "list", "tuple", "dict"):
            raise SaveError(f"{where}: a structure of kind {tree.kind!r} cannot be saved")
        entry: dict[str, Any] = {"kind": tree.kind}
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
        if isinstance(value, weakref.ref) and self._node is not None and self._node.op in _VARIABLE_OPS:
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
        if array.dtype.hasobject or array.dtype.kind not in _DTYPE_KINDS - {"O"}:
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
    if dtype.kind not in _DTYPE_KINDS or dtype.fields is not None or dtype.subdtype is not None:
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


# -- reading -------------------------------------------------------------------------------
def _numpy_runner(graph: Graph) -> Callable[..., list]:
    from runtime.backends.numpy.compiler import compile_graph

    return compile_graph(graph)


_RUNNERS: dict[str, Runner] = {"numpy": _numpy_runner}


def register_runner(name: str, runner: Runner) -> None:
    """Let `read(..., backend=name)` run graphs with `runner(graph)`, a callable taking the flat
    inputs and returning the list of outputs."""
    _RUNNERS[name] = runner


def read(path: str | os.PathLike, backend: str = "numpy") -> LoadedObject:
    """The saved object in directory `path`, checked and rebuilt (see the module docstring)."""
    if backend not in _RUNNERS:
        raise ValueError(
            f"no backend {backend!r} runs saved graphs here; available: {', '.join(sorted(_RUNNERS))}."
        )
    directory = Path(path)
    effects = ops_effects
    document, arrays, values = _read_files(directory)
    return _Reader(directory, effects, arrays, values, _RUNNERS[backend]).root(document)


def _read_files(directory: Path) -> tuple[dict, Mapping[str, np.ndarray], Mapping[str, np.ndarray]]:
    manifest_path = directory / MANIFEST_FILE
    if not directory.is_dir():
        raise LoadError(f"{directory} is not a directory; ag.saved_model.load takes the directory save wrote.")
    if not manifest_path.is_file():
        raise LoadError(
            f"{directory} holds no {MANIFEST_FILE}: it is not a saved graph directory (or it was not "
            f"saved completely); save it again with ag.saved_model.save."
        )
    manifest = _parse_json(manifest_path.read_bytes(), manifest_path)
    _check_format(manifest, manifest_path)
    files = manifest.get("files")
    if not isinstance(files, dict) or set(files) != set(_DATA_FILES):
        raise LoadError(f"{manifest_path} does not list the files {', '.join(_DATA_FILES)}; it was altered.")
    contents = {}
    for name in _DATA_FILES:
        facts = files[name]
        file = directory / name
        if not file.is_file():
            raise LoadError(f"{file} is missing; the saved directory is incomplete. Save it again.")
        data = file.read_bytes()
        if not isinstance(facts, dict) or len(data) != facts.get("size"):
            raise LoadError(
                f"{file} has {len(data)} bytes but was saved with {facts.get('size') if isinstance(facts, dict) else '?'}: "
                f"it is truncated or was changed after saving. Save it again, or copy it completely."
            )
        if hashlib.sha256(data).hexdigest() != facts.get("sha256"):
            raise LoadError(
                f"{file} does not match the sha256 hash recorded in {MANIFEST_FILE}: it was changed after "
                f"saving (or damaged). Save it again."
            )
        contents[name] = data
    document = _parse_json(contents[GRAPH_FILE], directory / GRAPH_FILE)
    _check_format(document, directory / GRAPH_FILE)
    return document, _load_npz(directory / ARRAYS_FILE), _load_npz(directory / VARIABLES_FILE)


def _parse_json(data: bytes, path: Path) -> Any:
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise LoadError(f"{path} is not valid JSON ({error}); it is damaged. Save it again.") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"the non-standard constant {name}")


def _check_format(document: Any, path: Path) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise LoadError(f"{path} is not an autograph saved graph (its format is not {FORMAT!r}).")
    version = document.get("version")
    if type(version) is not int:
        raise LoadError(f"{path} has no format version; it was altered.")
    if version > VERSION:
        raise LoadError(
            f"{path} was saved in format version {version}, newer than this autograph reads "
            f"(version {VERSION}); upgrade autograph to load it."
        )
    if version < 1:
        raise LoadError(f"{path} has the unknown format version {version}.")


def _load_npz(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError, EOFError, KeyError) as error:
        raise LoadError(f"{path} cannot be read as NumPy arrays ({error}); save it again.") from None


class _Bad(Exception):
    """A problem in the file, with where it is; becomes a LoadError naming the file."""


class _Reader:
    """Decodes the tagged JSON `write` produced, checking every value it reads."""

    def __init__(self, directory: Path, effects: Any, arrays: Mapping, values: Mapping, runner: Runner) -> None:
        self.directory = directory
        self.effects = effects
        self.arrays = arrays
        self.values = values
        self.runner = runner
        self.variables: list[RestoredVariable] = []
        self._used_arrays: set[str] = set()

    def root(self, document: dict) -> LoadedObject:
        try:
            return self._root(document)
        except _Bad as problem:
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
                raise _Bad(f"function {name!r} has no concrete functions")
            setattr(loaded, name, LoadedFunction(name, concretes, tuple(self.variables)))
        callable_name = document.get("callable")
        if callable_name is not None:
            if callable_name not in functions:
                raise _Bad(f"the callable function {callable_name!r} is not one of the saved functions")
            object.__setattr__(loaded, "_callable", getattr(loaded, callable_name))
        object.__setattr__(loaded, "_variables", tuple(self.variables))
        return loaded

    def variable(self, index: int, entry: dict) -> RestoredVariable:
        name = _expect(entry["name"], str, "a variable's name")
        type_ = self.type(entry["type"])
        if not isinstance(type_, TensorType) or not type_.is_fully_defined:
            raise _Bad(f"variable {name!r} has no fixed shape")
        value = None
        if _expect(entry["initialized"], bool, "initialized"):
            key = f"v{index}"
            if key not in self.values:
                raise _Bad(f"the value of variable {name!r} is missing from {VARIABLES_FILE}")
            value = self.values[key]
            if value.dtype != type_.dtype or value.shape != type_.shape:
                raise _Bad(f"the value of variable {name!r} is {value.dtype}{list(value.shape)}, not {type_}")
        return RestoredVariable(name, type_, value)

    def variable_at(self, index: Any) -> RestoredVariable:
        if type(index) is not int or not 0 <= index < len(self.variables):
            raise _Bad(f"a reference to variable {index!r}, which is not saved")
        return self.variables[index]

    def function(self, entry: dict) -> LoadedConcreteFunction:
        name = _expect(entry["name"], str, "a function's name")
        params = []
        for param in _expect(entry["params"], list, "params"):
            kind = _KINDS.get(param["kind"])
            if kind is None:
                raise _Bad(f"function {name!r} has a parameter of unknown kind {param['kind']!r}")
            default = self.value(param["default"]) if "default" in param else inspect.Parameter.empty
            params.append(inspect.Parameter(_identifier(param["name"]), kind, default=default))
        signature = inspect.Signature(params)
        in_tree = self.tree(entry["inputs"]["tree"])
        in_plan = tuple(self.in_leaf(leaf) for leaf in _expect(entry["inputs"]["plan"], list, "plan"))
        out_tree = self.tree(entry["outputs"]["tree"])
        out_plan = tuple(self.out_leaf(leaf) for leaf in _expect(entry["outputs"]["plan"], list, "plan"))
        graph = self.graph(entry["graph"], None, None)
        if in_tree.num_leaves != len(in_plan) or out_tree.num_leaves != len(out_plan):
            raise _Bad(f"function {name!r}: its structures and plans disagree in length")
        if in_tree.kind != "tuple" or len(in_tree.children) != len(params):
            raise _Bad(f"function {name!r}: its arguments do not match its {len(params)} parameters")
        tensors = [leaf for leaf in in_plan if isinstance(leaf, TensorLeaf)]
        if len(tensors) != len(graph.inputs) or any(
            leaf.type != node.type for leaf, node in zip(tensors, graph.inputs)
        ):
            raise _Bad(f"function {name!r}: its tensor arguments do not match its graph's inputs")
        if any(isinstance(p, int) and not 0 <= p < len(graph.outputs) for p in out_plan):
            raise _Bad(f"function {name!r} returns an output its graph does not have")
        return LoadedConcreteFunction(name, signature, graph, in_tree, in_plan, out_tree, out_plan, self.runner)

    def in_leaf(self, entry: dict) -> Any:
        if "tensor" in entry:
            type_ = self.type(entry["tensor"])
            if not isinstance(type_, TensorType):
                raise _Bad("an argument has a tuple type")
            return TensorLeaf(type_, _expect(entry["name"], str, "an input's name"))
        if "variable" in entry:
            return VariableLeaf(self.variable_at(entry["variable"]))
        if "python" in entry:
            return ConstLeaf(self.value(entry["python"]))
        raise _Bad(f"an argument entry of unknown form {sorted(entry)}")

    def out_leaf(self, entry: Any) -> Any:
        if type(entry) is int:
            return entry
        if isinstance(entry, dict) and set(entry) == {"static"}:
            return ConstLeaf(self.value(entry["static"]))
        raise _Bad(f"a result entry of unknown form {entry!r:.60}")

    def tree(self, entry: dict) -> TreeDef:
        kind = entry["kind"]
        children = tuple(self.tree(child) for child in _expect(entry.get("children", []), list, "children"))
        if kind == "leaf":
            if children:
                raise _Bad("a leaf with children")
            return LEAF
        if kind in ("list", "tuple"):
            return TreeDef(kind, None, children)
        if kind == "dict":
            keys = tuple(self.value(k) for k in _expect(entry["keys"], list, "keys"))
            order = tuple(self.value(k) for k in entry["order"]) if "order" in entry else None
            if len(keys) != len(children) or (order is not None and sorted(map(repr, order)) != sorted(map(repr, keys))):
                raise _Bad("a dict structure whose keys and values disagree")
            return TreeDef("dict", keys, children, order)
        raise _Bad(f"a structure of unknown kind {kind!r}")

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
                    raise _Bad(f"graph {name!r} captures {outer.name!r} twice")
                graph.captures[outer] = node
        graph.inputs = [self.named(nodes, n, name) for n in _expect(entry["inputs"], list, "inputs")]
        if [n for n in graph.nodes if n.op == "input"] != graph.inputs:
            raise _Bad(f"graph {name!r}: its inputs list does not match its input nodes")
        graph.outputs = [self.named(nodes, n, name) for n in _expect(entry["outputs"], list, "outputs")]
        graph.namespace = Namespace(("np", *nodes))
        graph._ids = {id(node) for node in graph.nodes}
        return graph.finish()

    @staticmethod
    def named(nodes: dict[str, Node], name: Any, graph: str) -> Node:
        if type(name) is not str or name not in nodes:
            raise _Bad(f"graph {graph!r} refers to {name!r}, which is not one of its nodes defined before")
        return nodes[name]

    def node(self, item: dict, graph: Graph, nodes: dict[str, Node], parent_nodes: dict[str, Node] | None) -> Node:
        name = _identifier(item["name"])
        if name in nodes:
            raise _Bad(f"graph {graph.name!r} has two nodes named {name!r}")
        op = item["op"]
        if type(op) is not str or (op not in OPS and op not in _STRUCTURAL):
            raise _Bad(f"node {name!r} uses the op {op!r}, which this autograph does not have")
        if op == "py_function":
            raise _Bad(f"node {name!r} is a py_function, which a saved graph never holds")
        inputs = tuple(self.named(nodes, n, graph.name) for n in _expect(item.get("inputs", []), list, "inputs"))
        type_ = self.type(item["type"])
        origin = self.origin(item["origin"]) if "origin" in item else None
        if op == "capture":
            if parent_nodes is None:
                raise _Bad(f"node {name!r} captures a value, but graph {graph.name!r} is not nested")
            attrs = {"outer": self.named(parent_nodes, item["outer"], f"enclosing {graph.name}")}
            if attrs["outer"].type != type_:
                raise _Bad(f"capture {name!r} has another type than the value it captures")
        else:
            attrs = {}
            for key, value in _expect(item.get("attrs", {}), dict, "attrs").items():
                attrs[_expect(key, str, "an attribute name")] = self.value(value, graph, nodes)
        if op in ("input", "capture", "constant") and inputs:
            raise _Bad(f"node {name!r} ({op}) has inputs")
        node = Node(name, op, inputs, attrs, type_, origin)
        self.check_node(node)
        return node

    def check_node(self, node: Node) -> None:
        """The node's attributes have the forms its op reads, and its type is the op's rule's."""
        op, attrs = node.op, node.attrs
        if op == "input" or op == "capture":
            return
        if op == "constant":
            if "value" not in attrs:
                raise _Bad(f"constant {node.name!r} has no value")
            return
        if op == "getitem" and type(attrs.get("index")) is not int:
            raise _Bad(f"node {node.name!r} reads a non-integer index")
        if "args" in attrs:
            _check_template(attrs["args"], len(node.inputs), node.name)
        for key, value in attrs.items():
            if key != "args" and not isinstance(value, Graph):
                _check_template(value, len(node.inputs), node.name)
        if op == "cond":
            self.check_cond(node)
            return
        if op == "while":
            self.check_while(node)
            return
        if op in _TYPED_BY_CALLER:
            return
        try:
            inferred = OPS[op].infer(tuple(i.type for i in node.inputs), attrs)
        except Exception as error:  # the op's own rule refuses what the file says
            raise _Bad(f"node {node.name!r} ({op}) does not fit its inputs: {error}") from None
        if inferred != node.type:
            raise _Bad(f"node {node.name!r} ({op}) is typed {_show(node.type)}, but its op gives {_show(inferred)}")

    def check_cond(self, node: Node) -> None:
        true, false = node.attrs.get("true"), node.attrs.get("false")
        if not isinstance(true, Graph) or not isinstance(false, Graph) or not isinstance(node.type, tuple):
            raise _Bad(f"cond {node.name!r} lacks its branches")
        for branch in (true, false):
            if branch.inputs or [o.type.dtype for o in branch.outputs] != [t.dtype for t in node.type]:
                raise _Bad(f"cond {node.name!r}: a branch's results do not match the cond's types")
        self.check_captures(node, (true, false), 1)

    def check_while(self, node: Node) -> None:
        cond, body = node.attrs.get("cond"), node.attrs.get("body")
        limit = node.attrs.get("maximum_iterations")
        if not isinstance(cond, Graph) or not isinstance(body, Graph) or not isinstance(node.type, tuple):
            raise _Bad(f"while {node.name!r} lacks its test or body")
        if limit is not None and type(limit) is not int:
            raise _Bad(f"while {node.name!r} has a non-integer iteration limit")
        count = len(node.type)
        types = list(node.type)
        if ([n.type for n in body.inputs] != types or [n.type for n in cond.inputs] != types
                or [n.type for n in body.outputs] != types or len(cond.outputs) != 1):
            raise _Bad(f"while {node.name!r}: its test and body do not match its loop variables")
        if [n.type for n in node.inputs[:count]] != [TensorType(t.dtype, n.type.shape) for t, n in
                                                     zip(types, node.inputs[:count])]:
            raise _Bad(f"while {node.name!r}: its initial values do not match its loop variables")
        self.check_captures(node, (cond, body), count)

    @staticmethod
    def check_captures(node: Node, graphs: Sequence[Graph], first: int) -> None:
        captured: dict[Node, None] = {}
        for sub in graphs:
            for outer in sub.captures:
                captured.setdefault(outer, None)
        if list(captured) != list(node.inputs[first:]):
            raise _Bad(f"{node.op} {node.name!r}: its inputs are not the values its subgraphs capture")

    def type(self, entry: Any) -> TensorType | tuple[TensorType, ...]:
        if isinstance(entry, dict) and set(entry) == {"types"}:
            return tuple(self.type(t) for t in _expect(entry["types"], list, "types"))  # type: ignore[misc]
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape"}:
            raise _Bad(f"a type of unknown form {entry!r:.60}")
        shape = entry["shape"]
        if shape is not None:
            shape = tuple(_expect(shape, list, "a shape"))
            if any(d is not None and (type(d) is not int or d < 0) for d in shape):
                raise _Bad(f"a shape with an invalid dimension: {list(shape)}")
        return TensorType(self.dtype(entry["dtype"]), shape)

    @staticmethod
    def dtype(text: Any) -> np.dtype:
        if type(text) is not str or not re.fullmatch(r"[<>|=]?[a-zA-Z]\d*", text):
            raise _Bad(f"the dtype {text!r:.40} is not a plain dtype")
        try:
            dtype = np.dtype(text)
        except TypeError:
            raise _Bad(f"the dtype {text!r} is not one NumPy knows") from None
        if dtype.kind not in _DTYPE_KINDS:
            raise _Bad(f"the dtype {text!r} is not one a saved graph holds")
        return dtype

    @staticmethod
    def origin(entry: Any) -> Origin:
        if not isinstance(entry, dict):
            raise _Bad("an origin that is not an object")
        file = _expect(entry["file"], str, "an origin's file")
        line = _expect(entry["line"], int, "an origin's line")
        return Origin(file, line, _expect(entry.get("text", ""), str, "text"),
                      _expect(entry.get("function", ""), str, "function"), _expect(entry.get("col", 0), int, "col"))

    def array(self, key: Any) -> np.ndarray:
        if type(key) is not str or key not in self.arrays:
            raise _Bad(f"a reference to the array {key!r:.40}, which {ARRAYS_FILE} does not hold")
        return self.arrays[key]

    def value(self, entry: Any, graph: Graph | None = None, nodes: dict | None = None) -> Any:
        """One value from its tagged form; anything not of a known form is an error."""
        kind = type(entry)
        if entry is None or kind is bool or kind is str or kind is int:
            return entry
        if kind is list:
            raise _Bad("an untagged list")
        if kind is not dict or len(entry) != 1:
            raise _Bad(f"a value of unknown form {entry!r:.60}")
        (tag, data), = entry.items()
        if tag == "float":
            return _float(data)
        if tag == "complex":
            re_, im = _expect(data, list, "complex")
            return complex(_float(re_), _float(im))
        if tag == "scalar":
            array = self.array(data)
            if array.ndim != 0:
                raise _Bad("a scalar stored as an array of rank > 0")
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
                raise _Bad(f"a Python scalar of type {type(value).__name__}")
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
                raise _Bad("a subgraph outside of a node")
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
                raise _Bad("a shown structure without a structure")
            parts = tuple(self.value(p) for p in _expect(data["parts"], list, "parts"))
            if len(parts) != tree.num_leaves:
                raise _Bad("a shown structure whose parts do not fit it")
            return self.effects.Shown(tree, parts)
        if tag == "shown_slot":
            return self.effects.SLOT
        raise _Bad(f"a value tagged {tag!r}, which this format does not have")


def _show(type_: Any) -> str:
    return str(type_) if isinstance(type_, TensorType) else "(" + ", ".join(map(str, type_)) + ")"


def _check_template(item: Any, count: int, name: str) -> None:
    """Every Slot of an attribute names one of the node's inputs."""
    if isinstance(item, Slot):
        if not 0 <= item.index < count:
            raise _Bad(f"node {name!r} refers to input {item.index} of its {count}")
    elif isinstance(item, (tuple, list)):
        for value in item:
            _check_template(value, count, name)
    elif isinstance(item, Span):
        for value in (item.start, item.stop, item.step):
            _check_template(value, count, name)


def _expect(value: Any, kind: type, what: str) -> Any:
    if type(value) is not kind:
        raise _Bad(f"{what} should be a {kind.__name__}, not {type(value).__name__}")
    return value


def _float(text: Any) -> float:
    if type(text) is not str or not re.fullmatch(r"-?(inf|nan|\d+(\.\d*)?(e[-+]?\d+)?|\d*\.\d+(e[-+]?\d+)?)", text):
        raise _Bad(f"the float {text!r:.40} is not a number")
    return float(text)


def _identifier(name: Any) -> str:
    if type(name) is not str or not name.isidentifier() or not name.isascii():
        raise _Bad(f"the name {name!r:.40} is not a Python identifier")
    return name


def _check_attribute(name: Any) -> None:
    _identifier(name)
    if name.startswith("_"):
        raise _Bad(f"the attribute name {name!r} is private")
