"""The saved-graph format: its name, version and files, its errors, and what a saved function is.

A saved directory holds no Python code and nothing pickled:

    manifest.json      format name and version, and the size and sha256 of every other file
    saved_graph.json   the functions: parameters, input/output structure, graphs (docs/saving.md)
    arrays.npz         constants of the graphs (NumPy arrays, read with allow_pickle=False)
    variables.npz      the Variables' values (likewise)

`saved_write.write` takes functions described without the converter
(`TracedFunction`, whose argument leaves are `TensorLeaf`, `ConstLeaf` or
`VariableLeaf`); `saved_read.read` rebuilds them as `LoadedFunction`s
(loaded.py) that run on a backend. Reading checks before it builds: the
manifest's format and version, each file's size and hash, every op name
against the op registry, every node reference, name, type and attribute.
Graphs run through the same compiler a live trace uses, so a loaded function
computes exactly what the saved one did. Reading never runs code from the
files: they hold only data, every value is decoded from a fixed set of tagged
JSON forms, and the code the compiler generates names only registered ops.
This module holds what the writer and the reader share, so neither imports
the other.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from runtime.ir.errors import AutographError
from runtime.ir.graph import Graph
from runtime.ir.structure import TreeDef
from runtime.ir.types import TensorType

__all__ = [
    "FORMAT", "VERSION", "NAMEDTUPLE_VERSION", "MANIFEST_FILE", "GRAPH_FILE", "ARRAYS_FILE", "VARIABLES_FILE", "DATA_FILES",
    "STRUCTURAL_OPS", "TYPED_BY_CALLER", "VARIABLE_OPS", "DTYPE_KINDS", "PARAMETER_KINDS", "TENSOR_HINT", "SaveError",
    "LoadError", "Param", "TracedFunction", "TensorLeaf", "ConstLeaf", "VariableLeaf",
]

FORMAT = "autograph.saved_graph"
# Version 2 added namedtuple structures; a file records the oldest version that reads it, so
# files without them stay version 1 for older readers.
VERSION = 2
NAMEDTUPLE_VERSION = 2
MANIFEST_FILE = "manifest.json"
GRAPH_FILE = "saved_graph.json"
ARRAYS_FILE = "arrays.npz"
VARIABLES_FILE = "variables.npz"
DATA_FILES = (GRAPH_FILE, ARRAYS_FILE, VARIABLES_FILE)
STRUCTURAL_OPS = frozenset({"input", "capture", "constant"})
# ops whose type is set by the code that stages them (their `infer` refuses to run)
TYPED_BY_CALLER = frozenset({"cond", "while", "ta_new", "ta_write", "ta_unstack", "ta_read", "ta_stack",
                             "ta_size", "py_function"})
VARIABLE_OPS = frozenset({"read_variable", "assign_variable", "initialize_variable"})
DTYPE_KINDS = frozenset("biufcUSO")
PARAMETER_KINDS = {
    "POSITIONAL_ONLY": inspect.Parameter.POSITIONAL_ONLY,
    "POSITIONAL_OR_KEYWORD": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "VAR_POSITIONAL": inspect.Parameter.VAR_POSITIONAL,
    "KEYWORD_ONLY": inspect.Parameter.KEYWORD_ONLY,
    "VAR_KEYWORD": inspect.Parameter.VAR_KEYWORD,
}


class SaveError(AutographError, ValueError):
    """Something a traced function holds cannot be written as data (a py_function, an object)."""


# The annotation of a loaded parameter saved with Param.tensor.
TENSOR_HINT = "Tensor"


class LoadError(AutographError, ValueError):
    """A saved directory that is missing, damaged, altered, or of a format this version cannot read."""


# -- what is saved -------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # an inspect.Parameter kind's name
    default: Any = inspect.Parameter.empty
    tensor: bool = False  # annotated ag.Tensor under follow_type_hints: numbers given become arrays


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


@dataclass(frozen=True)
class TensorLeaf:
    """An argument leaf that is a graph input of this type."""

    type: TensorType
    name: str


@dataclass(frozen=True)
class ConstLeaf:
    """An argument leaf fixed to a Python value when traced (or a returned static value)."""

    value: Any


@dataclass(frozen=True, eq=False)
class VariableLeaf:
    """An argument leaf that is a Variable (the graph reads it; the loaded function uses the restored one)."""

    variable: Any
