"""The fast call of a trace: one generated function that checks and runs it.

A call that hits the cache pays for the call path, not the NumPy work, so a
trace whose arguments are plain (no containers, every tensor input of a fixed
dtype and rank, every other argument a Python number or string) gets one
generated function that does it all at once: it tests each argument against
the trace's key, runs the compiled graph's body inline and returns the NumPy
result (one output as it is; others packed by the ConcreteFunction):

    def add_one(function, x=MISS, /, *extra, **kwargs):
        if extra or kwargs or type(x) is not ndarray or x.dtype is not D0 or x.shape != S0 or EAGER[0] or graph_being_built() is not None:
            return missed(function, (x, *extra), kwargs)
        try:
            add = x + 1
            return add
        except Exception as error:
            note_user_line(error)
            raise

Its first argument is the Function or ConcreteFunction that calls it: both
keep it bound as their `_entry`, which *is* their `__call__`, so a cache hit
runs in this one Python frame. Anything else (another dtype or shape, a
left-out argument, keywords, a Python number instead of an array, eager mode,
a call while another trace records) goes to `function._general`, which binds,
converts, explains the mismatch or traces. For a trace of fixed shapes
(`exact`) the tests are the trace's cache key, so a Function may take the fast
call without computing the key; a trace with None dimensions is fast only for
its ConcreteFunction and for the Function of its input_signature (the one
trace every fitting call runs).
"""

from __future__ import annotations

import linecache
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from autograph.tracing.eager import EAGER
from autograph.tracing.keys import PRIMITIVES
from autograph.tracing.spec import TensorSpec
from runtime.compile import output_value
from runtime.origin import map_location, register_source_map
from runtime.run_errors import note_user_line
from runtime.structure import LEAF
from runtime.trace_context import graph_being_built
from runtime.types import TensorType

__all__ = ["MISS", "never", "missed", "build_fast_call", "bind_entry"]

MISS = object()  # the default of each parameter of a fast call: an argument left out


def never(function: Any, /, *args: Any, **kwargs: Any) -> Any:
    """The fast call of a Function with no trace to run fast yet: every call is general."""
    return function._general(args, kwargs)


def missed(function: Any, args: tuple, kwargs: dict) -> Any:
    """A fast call whose tests failed: the general path, without the left-out arguments."""
    end = len(args)
    while end and args[end - 1] is MISS:
        end -= 1
    return function._general(args[:end], kwargs)


def bind_entry(function: Any, fast: Callable[..., Any]) -> Callable[..., Any]:
    """`fast` bound to `function`: the callable its `__call__` property hands to Python."""
    return types.MethodType(fast, function)


def build_fast_call(cf: Any) -> Callable[..., Any]:
    """The fast call of ConcreteFunction `cf` (or `never` when its arguments are not plain)."""
    tree, plan = cf.in_tree, cf.in_plan
    if not cf.signature.all_positional or tree.kind != "tuple":
        return never
    if any(child != LEAF for child in tree.children) or not all(map(_plain, plan)):
        return never
    compiled = cf._compiled
    _header, *body, last = compiled.source.rstrip("\n").split("\n")
    code = compiled.function.__code__
    names = _Names(compiled.function.__globals__, code.co_varnames + code.co_names)
    graph_params = iter(code.co_varnames[: code.co_argcount])
    params = [next(graph_params) if isinstance(p, TensorSpec) else names.fresh(n) for n, p in zip(cf.signature.names, plan)]
    function, extra, kwargs = names.fresh("function"), names.fresh("extra"), names.fresh("kwargs")
    tests = [extra, kwargs] + [_test(i, name, part, names) for i, (name, part) in enumerate(zip(params, plan))]
    tests += [f"{names.bind('EAGER', EAGER)}[0]", f"{names.bind('graph_being_built', graph_being_built)}() is not None"]
    outputs = last.strip()[len("return [") : -1]  # the graph function ends `return [a, b]`
    miss, error = names.bind("MISS", MISS), names.fresh("error")
    given = f"({', '.join(params)}, *{extra})" if params else extra
    lines = [
        f"def {names.fresh(cf.name if cf.name.isidentifier() else 'fast_call')}({function}, "
        + "".join(f"{p}={miss}, " for p in params) + f"/, *{extra}, **{kwargs}):",
        f"    if {' or '.join(tests)}:",
        f"        return {names.bind('missed', missed)}({function}, {given}, {kwargs})",
        "    try:",
        *[f"    {line}" for line in body],
        f"        return {_result(cf, outputs, names)}",
        f"    except Exception as {error}:",
        f"        {names.bind('note_user_line', note_user_line)}({error})",
        "        raise",
    ]
    return _compile(compiled.filename, lines, names.namespace, shift=3, body_lines=len(body))


def _compile(graph_file: str, lines: list[str], namespace: dict[str, Any], shift: int, body_lines: int) -> Any:
    """Define the function; its lines map to the user's code like the graph's own lines."""
    source = "\n".join(lines) + "\n"
    filename = graph_file.replace("autograph_graph_", "autograph_fast_call_", 1)
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    origins = {line + shift: map_location(graph_file, line) for line in range(2, 2 + body_lines)}
    register_source_map(filename, {line: o for line, o in origins.items() if o is not None}, graph=True)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own code
    return namespace[lines[0][4 : lines[0].index("(")]]


class _Names:
    """Globals for the generated function, named apart from every name the graph body uses."""

    def __init__(self, graph_globals: dict[str, Any], body_names: tuple[str, ...]) -> None:
        self.namespace = dict(graph_globals)
        self.used = set(body_names)  # every local, global and attribute name of the body
        self._bound: dict[int, str] = {}

    def fresh(self, hint: str) -> str:
        name, n = hint, 0
        while name in self.used:
            n += 1
            name = f"{hint}_{n}"
        self.used.add(name)
        return name

    def bind(self, hint: str, value: Any) -> str:
        """A global name for `value` (one name per object)."""
        name = self._bound.get(id(value))
        if name is None:
            name = self._bound[id(value)] = self.fresh(hint)
            self.namespace[name] = value
        return name


def _plain(part: Any) -> bool:
    """A key part the fast call can test: a fixed NumPy type, or a Python number or string."""
    if isinstance(part, TensorSpec):
        return part.dtype != object and part.shape is not None
    return type(part) is tuple and part[0] in PRIMITIVES


def _test(index: int, name: str, part: Any, names: _Names) -> str:
    """A test that is true when argument `name` does *not* fit key part `part`."""
    if isinstance(part, TensorSpec):
        ndarray, dtype = names.bind("ndarray", np.ndarray), names.bind(f"D{index}", part.dtype)
        of_type = f"{names.bind('type', type)}({name})"  # `type(x)` is a specialised call
        if part.shape == ():  # a NumPy scalar, or a 0-d array
            scalar_type = names.bind(f"T{index}", part.dtype.type)
            kind = f"{of_type} is not {scalar_type} and {of_type} is not {ndarray}"
            return f"{kind} or {name}.dtype is not {dtype} or {name}.shape != ()"
        return f"{of_type} is not {ndarray} or {name}.dtype is not {dtype} or {_shape_test(index, name, part.shape, names)}"
    kind, value = part
    if kind is type(None):
        return f"{name} is not None"
    kind_name, of_type = names.bind(f"K{index}", kind), f"{names.bind('type', type)}({name})"
    if value != value:  # NaN keys every NaN alike
        return f"{of_type} is not {kind_name} or {name} == {name}"
    return f"{of_type} is not {kind_name} or {name} != {names.bind(f'V{index}', value)}"


def _shape_test(index: int, name: str, shape: tuple, names: _Names) -> str:
    """True when the shape of array `name` does not fit `shape` (None fits any size)."""
    if None not in shape:
        return f"{name}.shape != {names.bind(f'S{index}', shape)}"
    dims = [f"{name}.shape[{i}] != {d}" for i, d in enumerate(shape) if d is not None]
    return " or ".join([f"{name}.ndim != {len(shape)}", *dims])


def _result(cf: Any, outputs: str, names: _Names) -> str:
    """The returned expression: the output itself when it is one leaf, else packed by `cf`."""
    plan = cf.out_plan
    if cf.out_tree == LEAF and plan == (0,):
        out_type = cf.graph.outputs[0].type
        if isinstance(out_type, TensorType) and out_type.dtype != object:
            if out_type.rank is not None and out_type.rank > 0:
                return outputs
            return f"{names.bind('scalar', output_value)}({outputs})"
    return f"{names.bind('pack', cf.pack)}([{outputs}])"


