"""`autograph graph`: import a module, trace one function, and draw its graph.

Unlike `convert`, this command imports the module (its top-level code runs),
because tracing runs the function. Input specs are written `dtype[dims]`:
`float32[None,3]`, `int64[]`, `float64[?]`; a bare dtype (`float32`) means
unknown rank, and anything else is read as a Python literal (`3`, `True`,
`'mean'`) and passed as a constant. `name=SPEC` passes a keyword argument.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import os
import re
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import IO, Any

import numpy as np

from runtime.ir.subgraphs import walk

__all__ = ["GraphOptions", "run_graph", "parse_spec", "UsageError", "node_count", "add_target_arguments"]

_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*$")
_KEYWORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.+)$")
_UNKNOWN_DIMS = ("None", "?", "")


class UsageError(Exception):
    """A command-line value that cannot be used; argparse reports it (exit 2)."""


@dataclass
class GraphOptions:
    """What `autograph graph` was asked to do."""

    target: str
    args: list[str] = field(default_factory=list)
    output: str | None = None
    optimized: bool = False


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """The FILE:FUNCTION and --arg SPEC arguments of the commands that import and trace a function."""
    parser.add_argument("target", metavar="MODULE_OR_FILE:FUNCTION")
    parser.add_argument(
        "--arg", action="append", default=[], dest="args", metavar="SPEC",
        help="one input, in order: dtype[dims] (float32[None,3], int64[]) or a literal; "
        "name=SPEC for a keyword argument",
    )


def parse_spec(text: str) -> Any:
    """`float32[None,3]` -> TensorSpec((None, 3), float32); `3` -> the constant 3."""
    from autograph.tracing.spec import TensorSpec

    match = _SPEC.match(text)
    dtype = _dtype(match.group(1)) if match else None
    if match is None or dtype is None:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise UsageError(
                f"cannot read --arg {text!r}: write a tensor as dtype[dims] such as "
                f"'float32[None,3]' or 'int64[]', or a Python literal such as 3"
            ) from None
    if match.group(2) is None:
        return TensorSpec(None, dtype)
    dims = [d.strip() for d in match.group(2).split(",")]
    if dims == [""]:
        return TensorSpec((), dtype)
    return TensorSpec(tuple(_dim(d, text) for d in dims), dtype)


def _dtype(name: str) -> np.dtype | None:
    if name in ("True", "False", "None"):
        return None
    try:
        return np.dtype(name)
    except TypeError:
        return None


def _dim(text: str, spec: str) -> int | None:
    if text in _UNKNOWN_DIMS:
        return None
    if text.isdigit():
        return int(text)
    raise UsageError(f"bad dimension {text!r} in --arg {spec!r}: use a number, None or ?")


def run_graph(options: GraphOptions, stdout: IO[str], stderr: IO[str]) -> int:
    """Trace the target for the given specs and write DOT, SVG or PNG."""
    from runtime.backends.dot import FORMATS, render, to_dot

    fmt = _format(options.output)
    if fmt not in FORMATS:
        raise UsageError(f"cannot write {options.output!r}: use a name ending in .svg, .png or .dot")
    args, kwargs = _arguments(options.args)
    function = _load_target(options.target)
    graph = _trace(function, args, kwargs)
    if options.optimized:
        graph = _optimize(graph)
    dot_text = to_dot(graph)
    if options.output is None:
        stdout.write(dot_text)
        return 0
    data = dot_text.encode("utf-8") if fmt == "dot" else render(dot_text, fmt)
    with open(options.output, "wb") as handle:
        handle.write(data)
    stderr.write(f"wrote {options.output} ({node_count(graph)})\n")
    return 0


def node_count(graph: Any) -> str:
    """How many nodes the drawing holds: the graph's and its subgraphs' (a cond's branches, a loop's body)."""
    graphs = walk(graph)
    total = sum(len(g.nodes) for g in graphs)
    if len(graphs) == 1:
        return f"{total} nodes"
    return f"{total} nodes, {len(graph.nodes)} at the top level and {total - len(graph.nodes)} in {len(graphs) - 1} subgraphs"


def _format(output: str | None) -> str:
    if output is None:
        return "dot"
    return os.path.splitext(output)[1].lstrip(".").lower()


def _load_target(target: str) -> Any:
    location, colon, qualname = target.rpartition(":")
    if not colon or not location or not qualname:
        raise UsageError(f"cannot read {target!r}: write MODULE:FUNCTION or path/to/file.py:FUNCTION")
    module = _import(location)
    value: Any = module
    owner: Any = None
    for part in qualname.split("."):
        if not hasattr(value, part):
            missing = f" ({part!r} is missing)" if "." in qualname else ""
            raise UsageError(f"{location} has no {qualname!r}{missing}")
        owner, value = value, getattr(value, part)
    if not callable(value):
        raise UsageError(f"{location}:{qualname} is a {type(value).__name__}, not a function")
    if inspect.isclass(owner) and _is_instance_method(owner, part):
        raise UsageError(
            f"{location}:{qualname} is a method of the class {owner.__name__}: tracing it needs an "
            f"instance for 'self'. Name an instance the module makes ({location}:model.{part} "
            f"for a module-level model = {owner.__name__}(...)), or a function."
        )
    return value


def _is_instance_method(cls: type, name: str) -> bool:
    """Whether `cls.name` is called on an instance: not a static or class method, nor a class."""
    found = inspect.getattr_static(cls, name)
    return not isinstance(found, (staticmethod, classmethod, type)) and hasattr(found, "__get__")


def _import(location: str) -> ModuleType:
    """Import a module by dotted name, or a file by path; a syntax error is the file's line, no traceback."""
    from runtime.ir.errors import ConversionError

    try:
        return _import_module(location)
    except SyntaxError as error:
        where = f"{error.filename}:{error.lineno}" if error.filename else location
        text = (error.text or "").strip()
        shown = f"\n    {text}" if text else ""
        raise ConversionError(
            f"cannot import {location}: {where}: syntax error: {error.msg}{shown}\n"
            f"Fix the syntax first: graph imports the module to trace the function."
        ) from None


def _import_module(location: str) -> ModuleType:
    """Import a module by dotted name, or a file by path (its directory joins sys.path)."""
    if location.endswith(".py") or os.sep in location or os.path.isfile(location):
        if not os.path.isfile(location):
            raise UsageError(f"no such file: {location}")
        path = os.path.abspath(location)
        directory = os.path.dirname(path)
        if directory not in sys.path:
            sys.path.insert(0, directory)
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(location)
    except ModuleNotFoundError as error:
        if error.name and location.startswith(error.name):
            raise UsageError(f"no module named {location!r} (nor a file of that name)") from None
        raise


def _arguments(texts: list[str]) -> tuple[list[Any], dict[str, Any]]:
    """`--arg SPEC` is positional, `--arg name=SPEC` a keyword argument."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for text in texts:
        keyword = _KEYWORD.match(text)
        if keyword:
            kwargs[keyword.group(1)] = parse_spec(keyword.group(2))
        elif kwargs:
            raise UsageError(f"positional --arg {text!r} after a keyword --arg")
        else:
            args.append(parse_spec(text))
    return args, kwargs


def _trace(function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    function = _trace_function(function, args, kwargs)
    return function.get_concrete_function(*args, **kwargs).graph


def _trace_function(function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`function` as an ag.function whose signature the --arg list fits."""
    import autograph as ag

    if not hasattr(function, "get_concrete_function"):
        function = ag.function(function)
    try:
        signature = inspect.signature(getattr(function, "python_function", function))
        signature.bind(*args, **kwargs)
    except TypeError as error:
        raise UsageError(f"the --arg list does not fit {signature}: {error}") from None
    except ValueError:  # no signature to check (a builtin): let tracing decide
        pass
    return function


def _optimize(graph: Any) -> Any:
    """The graph after the runtime's optimisation passes."""
    import runtime.passes as optimize

    passes = getattr(optimize, "optimize", None)
    if passes is None:
        raise UsageError("--optimized needs runtime.passes.optimize, which this build lacks")
    return passes(graph)
