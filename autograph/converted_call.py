"""converted_call: how converted code calls anything, converting user functions on the way.

    ag__.converted_call(f, x, k=1)      # f(x, k=1)

1. a builtin the runtime stages (`runtime.operators.builtins.OVERRIDES`) -> its operator;
   a NumPy random function or generator method -> itself, reported when it
   draws while tracing (see random_draws);
2. things never converted -> called as is: functions marked do_not_convert,
   builtins and C functions, classes, autograph Function objects, functions
   of numpy / the standard library / autograph / runtime, generators,
   code that is already converted;
3. user functions, lambdas and bound methods -> converted once (cached), then called;
   so is the `__call__` of an instance of a user class (a layer, a model), and
   the function a `functools.partial` wraps (its arguments go with it).

A builtin of `AS_IS_FOR_PYTHON_VALUES` given only Python values is
called directly, checked before anything else: `range(2, n)` in a
Python-mode loop costs a set lookup, a type check per argument and the
builtin. Otherwise the decision is remembered per function object. Callables
that live as long as the process (builtins, NumPy's functions with a staged
override, a module's C functions like `math.sqrt`) are held in a table keyed
by themselves, looked up first. A user function
is keyed by its id and checked through a weak reference, so its entry dies
with it and is never reused. Other callables run as is are remembered by
their type when the type alone decides it and can neither change nor be
freed (a class, a ufunc, NumPy's functions, `d.get`): the object itself is
never kept.
"""

from __future__ import annotations

import functools
import sys
import types
import weakref

from autograph.converters.context import Options
from autograph.live_conversion import convert_live
from autograph.namespace import build_namespace
from autograph.random_draws import BUILTIN_METHOD_OWNERS, drawing_target, module_callables
from autograph.unconverted import as_is, control_flow_line
from runtime.ir.errors import ConversionError
from runtime.ir.user_frames import note_user_code
from runtime.operators.builtins import AS_IS_FOR_PYTHON_VALUES, OVERRIDES, PYTHON_VALUES

__all__ = ["converted_call", "convert_function", "AG", "DO_NOT_CONVERT", "is_convertible", "why_as_is"]

DO_NOT_CONVERT = "__autograph_do_not_convert__"
_NEVER_PACKAGES = frozenset({"numpy", "autograph", "runtime", "gast"}) | frozenset(sys.stdlib_module_names)
_GENERATOR_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
# function -> what to call instead (its conversion, or itself)
_TARGETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# the same, for the hot path: id(function) -> (weak reference to it, target); see _remember
_FAST: dict[int, tuple[weakref.ref, object]] = {}
# callables that live for ever (they cannot be weakly referenced), keyed by themselves:
# callable -> what to call
_HELD: dict[object, object] = module_callables()  # np.random.normal & co.: reported while tracing
_BUILTIN_METHOD = types.BuiltinMethodType
# types whose instances are called as they are, unless OVERRIDES holds one: see _remember_type
_AS_IS_TYPES: set[type] = set()
_DECIDED_BY_WHAT_THEY_WRAP = (types.FunctionType, types.MethodType, functools.partial)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time, which may be changed or freed


def is_convertible(func: object) -> bool:
    """Whether `func` is a user Python function autograph converts (rule 3)."""
    if not isinstance(func, types.FunctionType) or getattr(func, DO_NOT_CONVERT, False):
        return False
    if getattr(func, "__autograph_function__", False) or getattr(func, "__autograph_converted__", False):
        return False
    code = func.__code__
    if code.co_flags & _GENERATOR_FLAGS or code.co_filename.startswith("<autograph: "):
        return False
    module = (getattr(func, "__module__", None) or "").split(".")[0]
    return module not in _NEVER_PACKAGES


def _target(func: types.FunctionType) -> object:
    """The conversion of `func`, or `func` itself when it is not converted."""
    try:
        target = _TARGETS[func]
    except KeyError:
        pass
    else:
        _remember(func, target)
        return target
    target = func
    if is_convertible(func):
        try:
            target = convert_live(func, Options(), AG)
        except ConversionError as error:  # no source (or unsupported): run it as Python
            target = as_is(func, str(error).partition("\n")[0], failed=True)
    elif _is_users(func) and control_flow_line(func.__code__) is not None:
        target = as_is(func, why_as_is(func))  # strict mode refuses it while tracing (see unconverted)
    _TARGETS[func] = target
    _remember(func, target)
    return target


def _is_users(func: types.FunctionType) -> bool:
    module = (getattr(func, "__module__", None) or "").split(".")[0]
    return (
        module not in _NEVER_PACKAGES
        and not getattr(func, "__autograph_function__", False)
        and not getattr(func, "__autograph_converted__", False)
        and not func.__code__.co_filename.startswith("<autograph: ")
    )


def why_as_is(func: types.FunctionType) -> str:
    """Why converted code calls a user function as it is (for ag.explain and strict mode)."""
    if getattr(func, DO_NOT_CONVERT, False):
        return "marked do_not_convert"
    return "a generator or coroutine function" if func.__code__.co_flags & _GENERATOR_FLAGS else "not converted"


def _remember(func: types.FunctionType, target: object) -> None:
    """Record `func -> target` for converted_call's lookup by id; the entry dies with `func`."""
    key = id(func)

    def forget(ref: weakref.ref, fast: dict = _FAST) -> None:
        # `fast` is bound now: at interpreter exit the module's globals may already be None
        if fast.get(key, (None,))[0] is ref:
            del fast[key]

    _FAST[key] = (weakref.ref(func, forget), target)


def converted_call(f, /, *args: object, **kwargs: object) -> object:
    """Call `f(*args, **kwargs)`, converting `f` first if it is user code.

    An exception out of the call gets the "in user code:" note on its way out
    of converted code (see runtime.ir.user_frames); not one a builtin raises on
    Python values, which is often caught at once (`try: int(s)`).
    """
    try:
        direct = f in AS_IS_FOR_PYTHON_VALUES
    except TypeError:  # an unhashable callable (its class sets __eq__ only) is never held
        return _call_unhashable(f, args, kwargs)
    if direct and not kwargs:
        for arg in args:
            if type(arg) not in PYTHON_VALUES:
                break
        else:  # Python values only: the builtin is what its operator would call
            return f(*args)
    try:
        held = _HELD.get(f)
        if held is not None:
            target = held
        else:
            entry = _FAST.get(id(f))
            if entry is not None and entry[0]() is f:
                target = entry[1]
            elif type(f) in _AS_IS_TYPES and f not in OVERRIDES:
                target = f
                if type(f) is _BUILTIN_METHOD and type(f.__self__) in BUILTIN_METHOD_OWNERS:
                    target = drawing_target(f)  # random.Random().random, or a generator's (NumPy < 2)
            else:
                target = _slow_target(f)
                if type(target) is tuple:  # a bound method: (converted function, self)
                    target, receiver = target
                    return target(receiver, *args, **kwargs) if kwargs else target(receiver, *args)
        if kwargs:
            return target(*args, **kwargs)
        return target(*args)
    except Exception as error:
        note_user_code(error)
        raise


def _call_unhashable(f: object, args: tuple, kwargs: dict) -> object:
    """converted_call of a callable that is neither held nor in OVERRIDES, since neither can hold it."""
    target = f if type(f) in _AS_IS_TYPES else _slow_target(f)
    if type(target) is tuple:
        target, receiver = target
        args = (receiver, *args)
    return target(*args, **kwargs) if kwargs else target(*args)


def _slow_target(f: object) -> object:
    try:
        override = OVERRIDES.get(f)
    except TypeError:  # unhashable callable
        override = None
    if override is not None:  # OVERRIDES holds `f`: it lives for ever
        _HELD[f] = override
        return override
    drawing = drawing_target(f)  # rng.random: reported while tracing (see random_draws)
    if drawing is not None:
        return drawing
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        # a do_not_convert method: its function is not convertible, so the pair calls it as is
        return (_function_target(f.__func__), f.__self__)
    if isinstance(f, types.FunctionType):
        return _target(f)
    if isinstance(f, types.BuiltinFunctionType) and isinstance(f.__self__, types.ModuleType):
        _HELD[f] = f  # math.sqrt and the like live as long as their module
        return f
    target = _callable_target(f)
    if target is f:
        _remember_type(type(f))
    return target


def _callable_target(f: object) -> object:
    """A user object's converted `__call__` with the object, a partial of a converted function, or `f`.

    Neither is remembered by the object: there may be any number of them; the
    function they hold is, as for any other call.
    """
    if type(f) is functools.partial:
        func = f.func
        if isinstance(func, types.FunctionType):
            target = _function_target(func)
            if target is not func:
                return functools.partial(target, *f.args, **f.keywords)
        return f
    call = getattr(type(f), "__call__", None)  # noqa: B004 - the method itself, to convert it
    if (
        isinstance(call, types.FunctionType)
        and is_convertible(call)
        and not getattr(f, "__autograph_function__", False)
        and not getattr(f, DO_NOT_CONVERT, False)
    ):
        return (_function_target(call), f)
    return f


def _remember_type(kind: type) -> None:
    """Remember that every instance of `kind` not in OVERRIDES is called as is, if its type alone decides it.

    It does for a type that is neither a function, a bound method nor a
    partial (each decided by what it wraps) and that is built into the
    interpreter or an extension, with all of its bases: such a type has no
    Python `__call__`, cannot be given one later, and is never freed, so the
    set keeps nothing alive. Classes (instances of `type`), NumPy's ufuncs and
    functions, methods of builtin objects (`d.get`) then skip `_slow_target`.
    """
    if kind not in _DECIDED_BY_WHAT_THEY_WRAP and not any(base.__flags__ & _HEAP_TYPE for base in kind.__mro__):
        _AS_IS_TYPES.add(kind)


def _function_target(func: types.FunctionType) -> object:
    """`_target(func)`, through the table converted_call reads first."""
    entry = _FAST.get(id(func))
    if entry is not None and entry[0]() is func:
        return entry[1]
    return _target(func)


def convert_function(func: types.FunctionType, recursive: bool = True) -> types.FunctionType:
    """`func` converted to call the operators of `AG` (a do_not_convert or converted one as is)."""
    if getattr(func, DO_NOT_CONVERT, False) or getattr(func, "__autograph_converted__", False):
        return func
    converted = convert_live(func, Options(recursive=recursive), AG)
    converted.__autograph_converted__ = True
    return converted


AG = build_namespace(converted_call)  # the `ag__` of every function converted in this process
