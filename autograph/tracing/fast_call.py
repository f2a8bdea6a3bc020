"""The fast call of a trace: one generated function that checks and runs it.

A call that hits the cache pays for the call path, not the NumPy work, so a
trace whose arguments are plain (no containers, every tensor input of a fixed
dtype and rank, every other argument a Python number or string) gets one
generated function that does it all at once: it tests each argument against
the trace's key, runs the compiled graph's body inline and returns the NumPy
result (one output as it is; others packed by the ConcreteFunction). Each
caller, the Function or ConcreteFunction it answers for, gets its own copy
(`_Maker`), whose global `function` is that caller:

    def add_one(x=MISS, *extra):
        if extra or type(x) is not ndarray or x.dtype is not D0 or x.ndim != 1 or len(x) != 4 or STEP_ASIDE[0]:
            return missed(function, NAMES, (x,), extra)
        try:
            add = x + 1
            return add
        except Exception:
            note_raised()
            raise

A caller whose trace is hot has its fast call as its class's `__call__`
(`hot_class`), so a cache hit runs in this one Python frame. The parameters
are the user's, so Python binds keyword arguments as the function would.
Anything else (another dtype or shape, a left-out or surplus argument, a
Python number instead of an array, eager mode, a trace recording in any
thread) goes to `function._general`, which binds, converts, explains the
mismatch or traces. For a trace of fixed shapes (`exact`) the tests are the trace's cache key, so
a Function may take the fast call without computing the key; a trace with
None dimensions is fast only for its ConcreteFunction and for the Function of
its input_signature (the one trace every fitting call runs).
"""

from __future__ import annotations

import functools
import inspect
import linecache
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from autograph.tracing.captured import fast_tests
from autograph.tracing.keys import PRIMITIVES, Exact, exact_value
from autograph.tracing.report import user_traceback
from autograph.tracing.spec import TensorSpec
from runtime.backends.numpy.compiler import output_value
from runtime.backends.numpy.run_errors import note_user_line
from runtime.ir.errors import AutographError
from runtime.ir.names import Namespace
from runtime.ir.origin import map_location, register_source_map, tie_to_code
from runtime.ir.structure import LEAF
from runtime.ir.types import TensorType
from runtime.tracing.trace_context import STEP_ASIDE

__all__ = ["MISS", "general_call", "never", "missed", "hot_class", "build_fast_call"]

MISS = object()  # the default of each parameter of a fast call: an argument left out


def general_call(function: Any, /, *args: Any, **kwargs: Any) -> Any:
    """The `__call__` of a Function or ConcreteFunction with no trace to run fast.

    Our own errors raised through it (a broken staging rule, a first run's failed assert)
    keep only the user's frames in their traceback."""
    try:
        return function._general(args, kwargs)
    except AutographError as error:
        raise error.with_traceback(user_traceback(error.__traceback__))  # noqa: B904 (the same error)


def never(function: Any) -> Callable[..., Any]:
    """The fast call (maker) of a trace whose arguments are not plain: every call is general."""
    return functools.partial(general_call, function)


def note_raised() -> None:
    """`note_user_line` for the exception being handled (the fast call's `except` names none)."""
    note_user_line(sys.exc_info()[1])


def missed(
    function: Any, names: tuple, values: tuple, extra: tuple, kwargs: dict | None = None
) -> Any:
    """A fast call whose tests failed: the general path, with the arguments as they were given.

    `values` holds one value per parameter, MISS where left out; the ones after
    the first left out were given by keyword, so they go on by keyword.
    """
    end = len(values)
    for index, value in enumerate(values):
        if value is MISS:
            end = index
            break
    if end == len(values):
        args, keywords = values + extra, kwargs or {}
    else:
        later = {name: value for name, value in zip(names[end:], values[end:]) if value is not MISS}
        args, keywords = values[:end] + extra, {**later, **(kwargs or {})}
    return general_call(function, *args, **keywords)


def hot_class(base: type, fast: Callable[..., Any], caller: Any) -> type:
    """`base` whose `__call__` is `fast` made for `caller` (`never` keeps `base` itself).

    Python looks `__call__` up on the class, so a Function (or ConcreteFunction)
    whose trace is hot becomes an instance of this subclass: a call that hits
    the cache then runs in the one frame of the fast call. `_fast` on the class
    says which trace's fast call it is. The caller keeps the classes it made.
    """
    if fast is never:
        return base
    namespace = {name: getattr(base, name) for name in ("__module__", "__qualname__", "__doc__")}
    namespace.update(__slots__=(), __call__=staticmethod(fast(caller)), _fast=staticmethod(fast))
    return type(base.__name__, (base,), namespace)


def build_fast_call(cf: Any) -> Callable[..., Any]:
    """The maker of `cf`'s fast call for a caller (`never` when its arguments are not plain)."""
    tree, plan = cf.in_tree, cf.in_plan
    if not cf.signature.all_positional or tree.kind != "tuple":
        return never
    if any(child != LEAF for child in tree.children) or not all(map(_plain, plan)):
        return never
    if getattr(cf, "backend", "numpy") != "numpy":
        return _calling_fast_call(cf)
    compiled = cf._compiled
    generated = compiled.generated
    body = generated.body
    code = compiled.function.__code__
    names = _Names(compiled.function.__globals__, _names_in(code))
    graph_params = iter(generated.params)
    inner = [next(graph_params) if isinstance(p, TensorSpec) else None for p in plan]
    header, params = _Header.of(cf.signature, inner, names)
    renames = [f"    {g} = {p}" for g, p in zip(inner, params) if g is not None and g != p]
    tests = header.tests + [_test(i, p, part, names) for i, (p, part) in enumerate(zip(params, plan))]
    watched = fast_tests(cf.watches, names.bind)  # a captured Python value changed (see captured)
    if watched is None:
        return never
    tests += watched
    tests.append(f"{names.bind('STEP_ASIDE', STEP_ASIDE)}[0]")  # a trace records, or eager mode
    outputs = ", ".join(generated.outputs)
    lines = [
        f"def {names.fresh(cf.name if cf.name.isidentifier() else 'fast_call')}({header.params}):",
        f"    if {' or '.join(tests)}:",
        f"        return {names.bind('missed', missed)}({header.missed_arguments})",
        *renames,
        "    try:",
        *[f"    {line}" for line in body],
        f"        return {_result(cf, outputs, names)}",
        "    except Exception:",
        f"        {names.bind('note_raised', note_raised)}()",
        "        raise",
    ]
    shift = 3 + len(renames)  # graph line 2, the body's first, is line 5 + len(renames) here
    template = _compile(compiled.filename, lines, names.namespace, shift, body_lines=len(body))
    return _Maker(template, header.function)


def _calling_fast_call(cf: Any) -> Callable[..., Any]:
    """The fast call of a trace another backend runs: the same tests, then a call of its executable.

        def f(x=MISS, n=MISS, *extra):
            if extra or type(x) is not ndarray or ... or STEP_ASIDE[0]:
                return missed(function, NAMES, (x, n), extra)
            try:
                out = executable(x, n)
                return out[0]
            except Exception:
                note_raised()
                raise
    """
    plan = cf.in_plan
    names = _Names({}, set())
    inner = [name if isinstance(part, TensorSpec) else None for name, part in zip(cf.signature.names, plan)]
    header, params = _Header.of(cf.signature, inner, names)
    tests = header.tests + [_test(i, p, part, names) for i, (p, part) in enumerate(zip(params, plan))]
    tests.append(f"{names.bind('STEP_ASIDE', STEP_ASIDE)}[0]")
    inputs = [p for p, part in zip(params, plan) if isinstance(part, TensorSpec)]
    out = names.fresh("out")
    outputs = ", ".join(f"{out}[{i}]" for i in range(len(cf.graph.outputs)))
    lines = [
        f"def {names.fresh(cf.name if cf.name.isidentifier() else 'fast_call')}({header.params}):",
        f"    if {' or '.join(tests)}:",
        f"        return {names.bind('missed', missed)}({header.missed_arguments})",
        "    try:",
        f"        {out} = {names.bind('executable', _numpy_call(cf._compiled))}({', '.join(inputs)})",
        f"        return {_result(cf, outputs, names)}",
        "    except Exception:",
        f"        {names.bind('note_raised', note_raised)}()",
        "        raise",
    ]
    namespace = names.namespace
    exec(compile("\n".join(lines) + "\n", f"<fast call of {cf.name} on {cf.backend}>", "exec"), namespace)  # noqa: S102
    return _Maker(namespace[lines[0][4 : lines[0].index("(")]], header.function)


def _numpy_call(executable: Any) -> Callable[..., Any]:
    """How the fast call runs `executable`: its `call_numpy` where it has one (the arguments are
    NumPy values of the traced types, as the fast call's tests make sure), else the executable."""
    return getattr(executable, "call_numpy", executable)


class _Maker:
    """A trace's fast call made for a caller: one compiled function, globals per caller.

    The function reads its caller, the global `function` (named apart from the
    body's names), only to hand it a call it misses. A copy of the globals per
    caller keeps the generated source flat: a closure would cost the compiler
    a second function at every trace.
    """

    __slots__ = ("template", "name")

    def __init__(self, template: types.FunctionType, name: str) -> None:
        self.template, self.name = template, name

    def __call__(self, caller: Any) -> types.FunctionType:
        template = self.template
        namespace = {**template.__globals__, self.name: caller}
        code = template.__code__.replace()  # its own inline caches, keyed by its own globals
        tie_to_code(code.co_filename, code)  # a copy may outlive the template: both keep the file
        return types.FunctionType(code, namespace, template.__name__, template.__defaults__)


class _Header:
    """The parameters of a fast call, and how it hands a call it misses to `missed`.

    The parameters take the user's names and kinds, so Python itself binds a
    keyword argument as the Function would; every one defaults to MISS, and
    `*extra` takes surplus positional arguments, for the general path to
    explain. When a user's name is also a name of the graph body, the
    parameters are positional-only under names of their own and `**kwargs`
    sends every keyword call the general way.
    """

    def __init__(self, function: str, params: str, tests: list[str], missed_arguments: str) -> None:
        self.function, self.params, self.tests = function, params, tests
        self.missed_arguments = missed_arguments

    @classmethod
    def of(cls, signature: Any, inner: list, names: _Names) -> tuple[_Header, list[str]]:
        user = list(signature.names)
        by_name = all(n not in names.names or n == g for n, g in zip(user, inner))
        if by_name:
            for name in user:
                names.names.reserve(name)
            params = user
        else:
            params = [g if g is not None else names.fresh(n) for n, g in zip(user, inner)]
        function, extra = names.fresh("function"), names.fresh("extra")
        miss = names.bind("MISS", MISS)
        positional_only = sum(kind is inspect.Parameter.POSITIONAL_ONLY for kind in signature.kinds)
        if not by_name:
            positional_only = len(params)
        defaults = [f"{p}={miss}" for p in params]
        parts = [*defaults[:positional_only], "/"] if positional_only else []
        parts += [*defaults[positional_only:], f"*{extra}"]
        values = f"({params[0]},)" if len(params) == 1 else f"({', '.join(params)})"
        arguments = [function, names.bind("NAMES", tuple(user)), values, extra]
        tests = [extra]
        if not by_name:
            kwargs = names.fresh("kwargs")
            parts.append(f"**{kwargs}")
            arguments.append(kwargs)
            tests.append(kwargs)
        return cls(function, ", ".join(parts), tests, ", ".join(arguments)), params


def _compile(graph_file: str, lines: list[str], namespace: dict[str, Any], shift: int, body_lines: int) -> Any:
    """Define the function; its lines map to the user's code like the graph's own lines."""
    source = "\n".join(lines) + "\n"
    filename = graph_file.replace("autograph_graph_", "autograph_fast_call_", 1)
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    origins = {line + shift: map_location(graph_file, line) for line in range(2, 2 + body_lines)}
    register_source_map(filename, {line: o for line, o in origins.items() if o is not None}, graph=True)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own code
    template = namespace[lines[0][4 : lines[0].index("(")]]
    tie_to_code(filename, template.__code__)
    return template


class _Names:
    """Globals for the generated function, named apart from every name the graph body uses."""

    def __init__(self, graph_globals: dict[str, Any], body_names: set[str]) -> None:
        self.namespace = dict(graph_globals)
        self.names = Namespace(frozenset(body_names))  # every local, global and attribute name of the body
        self._bound: dict[int, str] = {}

    def fresh(self, hint: str) -> str:
        return self.names.create(hint)

    def bind(self, hint: str, value: Any) -> str:
        """A global name for `value` (one name per object)."""
        name = self._bound.get(id(value))
        if name is None:
            name = self._bound[id(value)] = self.fresh(hint)
            self.namespace[name] = value
        return name


def _names_in(code: types.CodeType) -> set[str]:
    """Every name `code` and the code nested in it use: none may become a parameter."""
    names = set(code.co_varnames + code.co_names + code.co_freevars + code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_in(const)
    return names


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
            return f"{kind} or {name}.dtype is not {dtype} or {name}.ndim != 0"
        return f"{of_type} is not {ndarray} or {name}.dtype is not {dtype} or {_shape_test(index, name, part.shape, names)}"
    kind, value = part
    if kind is type(None):
        return f"{name} is not None"
    kind_name, of_type = names.bind(f"K{index}", kind), f"{names.bind('type', type)}({name})"
    if type(value) is Exact:  # a zero or a NaN: `==` cannot test it, its key can
        exact = names.bind("exact_value", exact_value)
        return f"{of_type} is not {kind_name} or {exact}({name}) != {names.bind(f'V{index}', value)}"
    return f"{of_type} is not {kind_name} or {name} != {names.bind(f'V{index}', value)}"


def _shape_test(index: int, name: str, shape: tuple, names: _Names) -> str:
    """True when the shape of array `name` does not fit `shape` (None fits any size).

    `len(x)` and `x.ndim` make no tuple: a vector's test is `x.ndim != 1 or len(x) != n`.
    """
    if len(shape) == 1 and shape[0] is not None:
        return f"{name}.ndim != 1 or {names.bind('len', len)}({name}) != {shape[0]}"
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


