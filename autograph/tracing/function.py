"""`ag.function`: a Python function as a cache of compiled traces.

Calling a Function computes a cache key from its arguments (see `keys`),
runs the matching ConcreteFunction, or — on a miss — converts the function,
traces it into a graph, compiles and caches it. Python side effects (print,
appends, reading globals) therefore happen only while tracing. A call like the
last one that hit skips the key: `__call__` is that trace's fast call
(`fast_call.hot_class`), and only a call it does not answer reaches `_general`.

    @ag.function
    def double(a):
        print("Tracing with", a)   # only while tracing
        return a + a

    double(np.int64(1))     # traces, prints, returns np.int64(2)
    double(np.int64(2))     # same key: runs the graph, prints nothing
"""

from __future__ import annotations

import functools
import threading
import types
import weakref
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np

from autograph.source.resolution import DECORATOR_MARK
from autograph.tracing.backend_choice import backend_name
from autograph.tracing.bound import BoundFunction
from autograph.tracing.concrete import ConcreteFunction
from autograph.tracing.conversion import converted_callable
from autograph.tracing.diagnosis import Diagnosed, History, check_captured
from autograph.tracing.eager import EAGER, functions_run_eagerly, run_functions_eagerly
from autograph.tracing.fast_call import general_call, hot_class, never
from autograph.tracing.input_signature import InputSignature
from autograph.tracing.keys import as_tensor_value, flat_parts, key_is_alive, leaf_key, spec_of
from autograph.tracing.report import annotate, autograph_off
from autograph.tracing.retracing import RetraceMonitor, fits, param_keys, relaxed_specs
from autograph.tracing.signature import Signature
from autograph.tracing.spec import TensorSpec
from autograph.tracing.trace import trace_function
from autograph.tracing.variable_policy import traced_with_variable_policy
from runtime.ir.errors import StagingError
from runtime.ir.origin import user_origin
from runtime.ir.structure import flatten, unflatten
from runtime.tracing.eager_tape import active_recorder
from runtime.tracing.fallbacks import strict_mode
from runtime.tracing.tensor import Tensor
from runtime.tracing.trace_context import graph_being_built

__all__ = ["Function", "function", "run_functions_eagerly", "functions_run_eagerly"]

_FAST = object()  # marks the key of a Function of one argument called with a tensor
_FLAT = object()  # marks the key of arguments without containers
_PATIENCE = 3  # general hits of another exact trace before it takes over the fast call
_TENSOR_LIKE = (np.ndarray, np.generic, Tensor, TensorSpec)
# (function identity, cache key) of every Function being traced or inlined right now
_ACTIVE: ContextVar[tuple] = ContextVar("autograph_active_functions", default=())


class Function(Diagnosed):
    """A traced and cached version of a Python function (see `function`)."""

    __autograph_function__ = True

    def __init__(
        self,
        python_function: Callable[..., Any],
        input_signature: Any = None,
        autograph: bool = True,
        reduce_retracing: bool = False,
        follow_type_hints: bool = False,
        strict: bool = False,
        check: bool = False,
        backend: str = "numpy",
        _instance: Any = None,
        _parent: Function | None = None,
    ) -> None:
        self._bind_owner = isinstance(python_function, classmethod)
        self._never_bind = isinstance(python_function, staticmethod)
        if isinstance(python_function, Function):
            python_function = python_function._func
        func = getattr(python_function, "__func__", python_function)
        if isinstance(python_function, types.MethodType):
            _instance = python_function.__self__
        functools.update_wrapper(self, func, updated=())
        self._func = func
        self._options = (input_signature, autograph, reduce_retracing, follow_type_hints, strict, check, backend)
        self._backend = backend
        self._autograph = autograph
        self._strict, self._check = strict, check
        self._reduce_retracing = reduce_retracing
        self._parent = _parent
        self._instance = None if _instance is None else _weak(_instance)
        self._signature = Signature.of(func, skip_first=_instance is not None)
        self._single_positional = self._signature.single_positional
        self._hinted = self._signature.positions_hinted(Tensor) if follow_type_hints else ()
        self._name = getattr(func, "__name__", type(func).__name__)
        # built at the first call: a method's signature is known once it is bound
        self._raw_input_signature = input_signature
        self._checked_signature: InputSignature | None = None
        self._converted: Callable[..., Any] | None = None
        self._cache: dict[Any, ConcreteFunction] = {}
        self._hot_classes: dict[Callable[..., Any], type] = {}  # see _use
        self._waited = 0  # general hits of another trace since the hot one became hot
        self._traces: list[ConcreteFunction] = []
        self._relaxed: list[ConcreteFunction] = []
        self._lock = threading.RLock()
        self._monitor = RetraceMonitor(reduce_retracing)
        self._history = History(reduce_retracing)
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @property
    def _input_signature(self) -> InputSignature | None:
        if self._raw_input_signature is None:
            return None
        if self._checked_signature is None:
            self._checked_signature = InputSignature(self._raw_input_signature, self._signature)
        return self._checked_signature

    # -- binding to instances ------------------------------------------
    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if self._never_bind:
            return self
        if self._bind_owner:
            instance = owner if owner is not None else type(instance)
        if instance is None or self._instance is not None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:  # unhashable instance: keep the bound Function on it
            return BoundFunction(instance, self._bound_on_instance(instance))
        if bound is None:
            with self._lock:
                bound = self._bound.get(instance)
                if bound is None:
                    bound = self._bind(instance)
                    self._bound[instance] = bound
        return BoundFunction(instance, bound)

    def _bound_on_instance(self, instance: Any) -> Function:
        attr = f"__autograph_bound_{id(self)}"
        if not hasattr(instance, "__dict__"):
            raise TypeError(
                f"{self._name} is an ag.function method, and {type(instance).__name__} instances "
                f"can hold neither a weak reference nor attributes; add '__weakref__' to its "
                f"__slots__ so each instance can have its own cache of traces."
            )
        bound = instance.__dict__.get(attr)
        if bound is None:
            bound = instance.__dict__[attr] = self._bind(instance)
        return bound

    def _bind(self, instance: Any) -> Function:
        return Function(self._func, *self._options, _instance=instance, _parent=self)

    @property
    def python_function(self) -> Callable[..., Any]:
        """The original Python function (bound to its instance for methods)."""
        if self._instance is not None:
            return types.MethodType(self._func, self._instance())
        return self._func

    # -- calling ----------------------------------------------------------
    __call__ = general_call  # until a trace is hot: then the class is hot_class(Function, ...)
    _fast = staticmethod(never)  # the fast call (maker) the class runs

    def _general(self, args: tuple, kwargs: dict) -> Any:
        """Every call the fast call does not answer: eager, inside a trace, a miss."""
        if EAGER[0]:
            return self._call_python(self._func, args, kwargs)
        if graph_being_built() is not None:
            return self._call_inline(args, kwargs)
        recorder = active_recorder()
        if recorder is not None:  # an eager GradientTape: run into its graph so it sees every op
            return recorder.call_function(lambda a, k: self._call_inline(a, k), args, kwargs)
        return self._call_checked(args, kwargs) if self._check else self._call_traced(args, kwargs)

    def _use(self, fast: Callable[..., Any]) -> None:
        """Make `fast` (a trace's fast call, or `never`) what the next calls run."""
        if type(self)._fast is not fast and not self._check:  # check=True: every call is general
            classes = self._hot_classes
            self.__class__ = classes.get(fast) or classes.setdefault(fast, hot_class(Function, fast, self))

    def _call_python(self, func: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        if self._instance is not None:
            return func(self._instance(), *args, **kwargs)
        return func(*args, **kwargs)

    def _call_traced(self, args: tuple, kwargs: dict) -> Any:
        if self._single_positional and len(args) == 1 and not kwargs and type(args[0]) is np.ndarray:
            # one array: its key without binding (a relaxed trace, or not the shape called last)
            cf = self._cache.get((args[0].dtype, args[0].shape, _FAST))
            if cf is not None:
                return self._hit(cf).run(list(args))
        values = self._canonical(args, kwargs)
        if self._input_signature is not None:
            inputs = self._input_signature.inputs_for(values, self._name)
            cf = self._signature_trace()
            if not self._input_signature.defaults:
                self._use(cf.fast)  # the only trace: every call that fits its specs runs it
            return cf.run(inputs)
        key, leaves = self._key(values)
        cf = self._cache.get(key)
        cf = self._miss(key, values) if cf is None else self._hit(cf)
        return cf.run([leaves[i] for i in cf.input_positions])

    def _hit(self, cf: ConcreteFunction) -> ConcreteFunction:
        """A hit ends the retrace streak; a trace of exactly this key becomes the fast call,
        after `_PATIENCE` hits if another is hot (alternating shapes would switch each call)."""
        self._monitor.streak = 0
        if cf.watches:
            check_captured(self._name, cf.watches)
        fast = cf.fast if cf.exact else never
        if fast is not never and type(self)._fast is not fast:
            if type(self)._fast is never or self._waited >= _PATIENCE:
                self._use(fast)
                self._waited = 0
            else:
                self._waited += 1
        return cf

    def _canonical(self, args: tuple, kwargs: dict) -> tuple:
        values = self._signature.canonicalize(args, kwargs)
        if self._hinted:
            values = tuple(
                as_tensor_value(v) if i in self._hinted else v for i, v in enumerate(values)
            )
        return values

    def _key(self, values: tuple) -> tuple[Any, Sequence]:
        """The cache key of canonical argument values, and their flat leaves."""
        parts = flat_parts(values)
        if parts is not None:
            if self._single_positional and isinstance(values[0], _TENSOR_LIKE):
                return (*parts[0], _FAST), values  # (dtype, shape): the dtype in native byte order
            return (_FLAT, parts), values
        leaves, tree = flatten(values)
        return (tree, tuple([leaf_key(leaf) for leaf in leaves])), leaves

    def _call_inline(self, args: tuple, kwargs: dict) -> Any:
        """Called while another trace records: run the converted code into that graph."""
        values = self._canonical(args, kwargs)
        entry = (self._identity(), self._key(values)[0])
        active = _ACTIVE.get()
        if entry in active:
            origin = user_origin(2)
            where = f" at {origin}" if origin is not None else ""
            raise StagingError(
                f"{self._name} calls itself{where} while it is being traced with "
                f"arguments of the same types and values, so its trace would never end. "
                f"Write the recursion as a loop, or recurse only on Python values."
            )
        if self._input_signature is not None:
            args, kwargs = self._input_signature.inline_arguments(values, self._name), {}
        token = _ACTIVE.set(active + (entry,))
        try:
            with strict_mode(self._strict, inherit=True):
                return self._call_python(self._traceable(), args, kwargs)
        finally:
            _ACTIVE.reset(token)

    def _identity(self) -> tuple:
        root = self._parent or self
        return (id(root), None if self._instance is None else id(self._instance()))

    # -- tracing ----------------------------------------------------------
    def _traceable(self) -> Callable[..., Any]:
        """The converted function (converted once, shared by every bound instance)."""
        if self._parent is not None:
            return self._parent._traceable()
        if self._converted is None:
            self._converted = self._convert()
        return self._converted

    def _convert(self) -> Callable[..., Any]:
        return converted_callable(self._func) if self._autograph else self._func

    def _miss(self, key: Any, values: tuple) -> ConcreteFunction:
        with self._lock:
            cf = self._cache.get(key)
            if cf is not None:
                return cf
            leaves, tree = flatten(values)
            self._prune()
            for relaxed in self._relaxed:
                if fits(relaxed, tree, leaves):
                    self._cache[key] = relaxed
                    return self._hit(relaxed)  # no new trace: the retrace streak ends
            specs = [spec_of(leaf) for leaf in leaves]
            if self._reduce_retracing:
                specs = relaxed_specs(self._traces, tree, leaves, specs) or specs
            cf = self._trace(key, tree, leaves, specs)
            self._cache[key] = cf
            self._use(never)  # the next hit goes the general way, which ends the retrace streak
            if any(s is not None and (s.shape is None or None in s.shape) for s in specs):
                self._relaxed.append(cf)
            self._monitor.traced(self._name, self._history.records[-1].reason)
            return cf

    def _trace(self, key: Any, tree: Any, leaves: list, specs: list) -> ConcreteFunction:
        keys = param_keys(self._signature.names, tree, leaves)
        reason = self._history.reason(keys)
        fn = self._traceable()
        if self._instance is not None:
            fn = functools.partial(fn, self._instance())
        token = _ACTIVE.set(_ACTIVE.get() + ((self._identity(), key),))
        try:
            with strict_mode(self._strict):  # its own flag: the trace is cached for every caller
                cf = traced_with_variable_policy(
                    lambda: trace_function(fn, self._name, self._signature, tree, leaves, specs, self._backend),
                    first=not self._traces,
                    name=self._name,
                )
        except Exception as error:
            if not self._autograph:
                autograph_off(error, self._name)
            annotate(error)
            raise
        finally:
            _ACTIVE.reset(token)
        self._traces.append(cf)
        cf.watches = self._watches(tree, leaves)
        self._history.add(self._name, keys, reason)
        return cf

    def _signature_trace(self) -> ConcreteFunction:
        if self._traces:
            return self._traces[0]
        with self._lock:
            if not self._traces:
                sig = self._input_signature
                key = self._key(unflatten(sig.tree, sig.leaves))[0]
                self._trace(key, sig.tree, sig.leaves, sig.trace_specs)
            return self._traces[0]

    def _prune(self) -> None:
        """Drop traces keyed by objects that have been garbage collected."""
        dead = [k for k in self._cache if not key_is_alive(k)]
        for k in dead:
            cf = self._cache.pop(k)
            if cf in self._traces and cf not in self._cache.values():
                self._traces.remove(cf)
                self._hot_classes.pop(cf._fast, None)
        self._relaxed = [cf for cf in self._relaxed if cf in self._traces]

    # -- inspecting ---------------------------------------------------------
    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (TensorSpecs or values), tracing if needed."""
        if self._input_signature is not None:
            if args or kwargs:
                self._input_signature.inputs_for(self._canonical(args, kwargs), self._name, specs=True)
            return self._signature_trace()
        values = self._canonical(args, kwargs)
        key = self._key(values)[0]
        return self._cache.get(key) or self._miss(key, values)

    def pretty_printed_concrete_signatures(self) -> str:
        return "\n\n".join(cf.signature_summary() for cf in self._traces)

    def experimental_get_tracing_count(self) -> int:
        """Traces so far; a method has a Function, so a count, per instance (as in TensorFlow)."""
        return len(self._traces)

    def __copy__(self) -> Function:
        """A new Function of the same Python function and options, with its own cache."""
        return Function(self._func, *self._options)

    def __deepcopy__(self, memo: dict) -> Function:
        return self.__copy__()

    def __repr__(self) -> str:
        return f"<ag.Function {getattr(self._func, '__qualname__', self._name)}>"


def function(
    func: Callable[..., Any] | None = None,
    *,
    input_signature: Any = None,
    autograph: bool = True,
    reduce_retracing: bool = False,
    follow_type_hints: bool = False,
    strict: bool = False,
    check: bool = False,
    jit_compile: bool = False,
    backend: str | None = None,
) -> Any:
    """Decorator: trace `func` into cached graphs (bare, or with keyword options).

    `strict=True` makes every fallback an error (runtime.tracing.fallbacks); `check=True`
    compares each call with the plain Python function (parity); see API.md "Diagnostics".
    `jit_compile=True` (or `backend="jax"`) runs each graph with JAX and XLA
    (`runtime.backends.jax`); the default backend runs it as Python over NumPy."""
    options = dict(input_signature=input_signature, autograph=autograph, reduce_retracing=reduce_retracing,
                   follow_type_hints=follow_type_hints, strict=strict, check=check,
                   backend=backend_name(jit_compile, backend))
    if func is None:
        return lambda f: Function(f, **options)
    return Function(func, **options)


setattr(function, DECORATOR_MARK, True)  # the converter leaves @ag.function as it is



def _weak(obj: Any) -> Callable[[], Any]:
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda: obj
