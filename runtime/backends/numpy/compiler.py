"""compile_graph: a Graph becomes one Python function over NumPy.

The graph is optimised (`runtime.passes`), printed as source
(`runtime.backends.numpy.codegen`), registered in `linecache` under its own file name so
tracebacks and `inspect` show the generated lines while its code lives, and
wrapped in a tiny generated entry function that checks each input's dtype and
shape against the graph's input types. The check is specialised per input (an
identity test on the dtype, a tuple compare on the shape) so a call costs a
few hundred nanoseconds on top of the NumPy work. Most graphs run once, right
after their trace, so the entry is generated at the second call; the first
checks the same way in plain Python.

    >>> fn = compile_graph(graph)        # cached on the graph
    >>> fn(np.float32([1, 2, 3, 4]))     # list of outputs, 0-d ones as NumPy scalars
"""

from __future__ import annotations

import itertools
import linecache
import types
import weakref
from typing import Any

import numpy as np

from runtime.backends.numpy.codegen import GeneratedSource, generate_source
from runtime.ir.errors import InvalidArgumentError
from runtime.ir.graph import Graph
from runtime.ir.input_arrays import plain_array
from runtime.ir.origin import register_source_map, tie_to_code
from runtime.ir.types import TensorType
from runtime.passes import optimize as run_passes

__all__ = ["CompiledGraph", "compile_graph", "to_source", "output_value", "may_be_scalar"]

_FILE_NUMBERS = itertools.count(1)

# NumPy defines a module __getattr__ (for the submodules it imports lazily), and CPython does
# not specialise attribute reads on such a module: every `np.tanh` of generated code would cost
# about 70 ns instead of 10, each loop iteration. Generated code reads `np` from a plain module
# holding the same attributes instead; a graph whose code names an attribute NumPy would only
# find through its __getattr__ gets the real module.
_NUMPY = types.ModuleType(np.__name__, np.__doc__)
_NUMPY.__dict__.update((name, value) for name, value in vars(np).items() if name != "__getattr__")
_NUMPY_LAZY = frozenset(dir(np)) - frozenset(vars(np))


class CompiledGraph:
    """A graph compiled to Python: call it with the flat inputs, get the list of outputs.

    `generated` is the source as parts (parameters, body lines, output
    expressions, globals), so a caller that inlines the body (the trace
    layer's fast call) never parses the text."""

    __slots__ = ("graph", "generated", "filename", "function", "_called", "__weakref__")
    backend = "numpy"

    def __init__(self, graph: Graph, generated: GeneratedSource, filename: str, function: Any) -> None:
        self.graph = graph
        self.generated = generated
        self.filename = filename
        self.function = function
        self._called = False

    @property
    def source(self) -> str:
        return self.generated.source

    def describe(self) -> str:
        """The generated Python source."""
        return self.generated.source

    def __call__(self, *args: Any) -> list:
        if not self._called:
            self._called = True
            return _checked_call(self.graph, self.function, args)
        entry = _make_entry(self.graph, self.function)
        # A subclass whose __call__ *is* the entry function saves a call frame.
        self.__class__ = type(
            "CompiledGraph", (CompiledGraph,), {"__slots__": (), "__call__": staticmethod(entry)}
        )
        return entry(*args)

    def __repr__(self) -> str:
        return f"<CompiledGraph {self.graph.name} from {self.filename}>"


# (id(graph), optimize) -> its compiled form, while anything uses it. A compiled graph holds its
# graph, so an id in use here is never one of a graph that is gone.
_COMPILED: weakref.WeakValueDictionary[tuple[int, bool], CompiledGraph] = weakref.WeakValueDictionary()


def compile_graph(graph: Graph, optimize: bool = True) -> CompiledGraph:
    """The compiled form of `graph`, built once per graph and optimisation setting."""
    key = (id(graph), optimize)
    compiled = _COMPILED.get(key)
    if compiled is None:
        compiled = _build(graph, run_passes(graph) if optimize else graph)
        _COMPILED[key] = compiled
    return compiled


def to_source(graph: Graph, optimize: bool = True) -> str:
    """The generated Python source of `graph` (what `compile_graph` runs)."""
    return compile_graph(graph, optimize).source


def _register(filename: str, source: str) -> None:
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)


def _build(original: Graph, graph: Graph) -> CompiledGraph:
    generated = generate_source(graph)
    filename = f"autograph_graph_{generated.name}_{next(_FILE_NUMBERS)}.py"
    _register(filename, generated.source)
    register_source_map(filename, generated.line_origins, graph=True)
    namespace = dict(generated.globals)
    code = compile(generated.source, filename, "exec")
    if namespace.get("np") is np and _NUMPY_LAZY.isdisjoint(_names_in(code)):
        namespace["np"] = _NUMPY
    exec(code, namespace)  # noqa: S102 - our own code
    # Taken out of its own globals: the function never calls itself, and a function its
    # globals hold is a reference cycle only the garbage collector frees.
    function = namespace.pop(generated.name)
    tie_to_code(filename, function.__code__)
    return CompiledGraph(original, generated, filename, function)


def _names_in(code: types.CodeType) -> set[str]:
    """The global and attribute names `code` and the functions in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_in(const)
    return names


# -- the entry function: input checks and output conversion -----------------
def _shape_test(arg: str, shape: tuple[int | None, ...] | None, index: int) -> str | None:
    if shape is None:
        return None
    if None not in shape:
        return f"{arg}.shape != _S{index}"
    tests = [f"len({arg}.shape) != {len(shape)}"]
    tests += [f"{arg}.shape[{i}] != {d}" for i, d in enumerate(shape) if d is not None]
    return " or ".join(tests)


def _make_entry(graph: Graph, function: Any) -> Any:
    """The input checks, the call and the output conversion as one function specialised to `graph`."""
    args = [f"a{i}" for i in range(len(graph.inputs))]
    namespace: dict[str, Any] = {
        "_fn": function, "_ndarray": np.ndarray, "_check": _checker(graph), "_scalar": output_value,
    }
    lines = [f"def {function.__name__}({', '.join(args)}):"]
    for index, (arg, node) in enumerate(zip(args, graph.inputs)):
        type_ = node.type
        if type_.dtype == object:
            continue
        namespace[f"_D{index}"] = type_.dtype
        namespace[f"_S{index}"] = type_.shape
        tests = [f"{arg}.__class__ is not _ndarray", f"{arg}.dtype is not _D{index}"]
        shape_test = _shape_test(arg, type_.shape, index)
        if shape_test is not None:
            tests.append(shape_test)
        lines.append(f"    if {' or '.join(tests)}:")
        lines.append(f"        {arg} = _check({index}, {arg})")
    scalars = [i for i, out in enumerate(graph.outputs) if may_be_scalar(out.type)]
    call = f"_fn({', '.join(args)})"
    if not scalars:
        lines.append(f"    return {call}")
    else:
        lines.append(f"    out = {call}")
        lines += [f"    out[{i}] = _scalar(out[{i}])" for i in scalars]
        lines.append("    return out")
    exec(compile("\n".join(lines) + "\n", f"<entry of {graph.name}>", "exec"), namespace)  # noqa: S102
    return namespace[function.__name__]


def _checked_call(graph: Graph, function: Any, args: tuple) -> list:
    """What the entry function does, in plain Python: check the inputs, call, convert the outputs."""
    values = list(args)
    for index, (value, node) in enumerate(zip(args, graph.inputs)):
        type_: TensorType = node.type  # type: ignore[assignment]
        if type_.dtype == object:
            continue
        if value.__class__ is not np.ndarray or value.dtype is not type_.dtype or not _shape_fits(
            value.shape, type_.shape
        ):
            values[index] = _check_input(graph, index, value)
    out = function(*values)
    for index, node in enumerate(graph.outputs):
        if may_be_scalar(node.type):
            out[index] = output_value(out[index])
    return out


def _shape_fits(shape: tuple[int, ...], expected: tuple[int | None, ...] | None) -> bool:
    if expected is None:
        return True
    return len(shape) == len(expected) and all(e is None or d == e for d, e in zip(shape, expected))


def may_be_scalar(type_: Any) -> bool:
    """Whether an output of this type may be 0-d, so it leaves as a NumPy scalar."""
    return isinstance(type_, TensorType) and type_.dtype != object and (type_.rank in (0, None))


def output_value(value: Any) -> Any:
    """0-d results as NumPy scalars (np.int64(2)), whatever produced them."""
    if value.__class__ is np.ndarray:
        return value[()] if value.ndim == 0 else value
    if isinstance(value, np.generic):
        return value
    array = np.asarray(value)
    return array[()] if array.ndim == 0 else array


def _checker(graph: Graph):
    """The slow path of the entry's input check (`_check_input` for this graph)."""

    def check(index: int, value: Any) -> Any:
        return _check_input(graph, index, value)

    return check


def _check_input(graph: Graph, index: int, value: Any) -> Any:
    """Input `index` as an array of its type: convert, compare, and explain a mismatch."""
    node = graph.inputs[index]
    array = value if isinstance(value, (np.ndarray, np.generic)) else np.asarray(value)
    if isinstance(array, np.ndarray):
        array = plain_array(array)  # native byte order; np.ma and np.matrix refused
    type_: TensorType = node.type  # type: ignore[assignment]
    if type_.is_compatible_with(array.dtype, array.shape):
        return array
    given = TensorType(array.dtype, array.shape)
    raise InvalidArgumentError(
        f"input {node.name!r} of graph {graph.name!r} expects {type_} but was given "
        f"{given}; pass a value of that dtype and shape (None dimensions match any size), "
        f"for example np.asarray(value, dtype=np.{type_.dtype.name})."
    )
