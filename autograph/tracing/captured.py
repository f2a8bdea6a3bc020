"""Captured Python values: a trace bakes in the globals, closure values and attributes it reads.

The guide's `buggy_add` reads a global `foo` while tracing; after `foo = 100`
the graph still adds the old value. After each trace this module notes the
plain values (numbers, strings, None, tuples of them, NumPy arrays) that the
Python function's own code reads: its globals, its closure cells, and
attributes of objects it reaches by name (`self.weight`, `model.weight`,
`CONFIG.scale`), each with the line that reads it (`watches_of`). When the
Function is called again and one of them has changed, it warns once per
value (`CapturedValueWarning`), naming the value and the line, and runs the
trace as before (as TensorFlow does).

Cost: a cache hit that goes the general way checks the trace's watches
(`check`); the fast call of a trace tests each watched global or closure
cell by identity (`fast_tests`: one dict lookup or attribute read and an
`is`; an attribute through a weak reference to its object), so that a
changed value leaves the fast call for the general path, which warns and
then watches the new value. Traces that read no such value pay nothing.
"""

from __future__ import annotations

import dis
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["CapturedValueWarning", "Watch", "watches_of", "check", "fast_tests"]

_PLAIN = (bool, int, float, complex, str, bytes, type(None), np.ndarray, np.generic)
_MISSING = object()


class CapturedValueWarning(UserWarning):
    """A Python value a trace read has changed since: the graph still uses the old value."""


class Watch:
    """One captured value: where it lives, the value the trace saw, the line that read it."""

    __slots__ = ("kind", "name", "holder", "value", "file", "line", "warned")

    def __init__(self, kind: str, name: str, holder: Any, value: Any, file: str, line: int) -> None:
        self.kind, self.name, self.holder, self.value = kind, name, holder, value
        self.file, self.line, self.warned = file, line, False

    def current(self) -> Any:
        """The value now (`_MISSING` if it is gone; the value seen if its object is gone)."""
        if self.kind == "global":
            return self.holder.get(self.name, _MISSING)
        if self.kind == "closure":
            try:
                return self.holder.cell_contents
            except ValueError:
                return _MISSING
        obj = self.holder()
        return self.value if obj is None else getattr(obj, self.name.rpartition(".")[2], _MISSING)


def watches_of(func: Callable[..., Any], bound: dict[str, Any]) -> list[Watch]:
    """The plain values `func`'s own code reads, as they are now (just after a trace).

    `bound`: the objects the trace was given by parameter name (`self` included),
    whose attributes it may read.
    """
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    globals_ = getattr(func, "__globals__", {})
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    watches: dict[tuple, Watch] = {}
    file = code.co_filename
    for kind, name, attr, line in _reads(code):
        if kind == "global":
            if name not in globals_:
                continue
            holder, value = globals_, globals_[name]
        elif kind == "closure":
            if name not in cells:
                continue
            holder = cells[name]
            try:
                value = holder.cell_contents
            except ValueError:
                continue
        else:
            if name not in bound:
                continue
            holder, value = None, bound[name]
        if attr is not None:
            _watch_attribute(watches, value, attr, file, line)
        elif holder is not None and _plain(value):
            watches.setdefault((kind, name), Watch(kind, name, holder, value, file, line))
    return list(watches.values())


_READS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOADS = {"LOAD_GLOBAL": "global", "LOAD_NAME": "global", "LOAD_DEREF": "closure",
          "LOAD_FAST": "local", "LOAD_FAST_CHECK": "local"}


def _reads(code: types.CodeType) -> list[tuple[str, str, str | None, int]]:
    """What `code` (and the code nested in it) reads by name: (kind, name, attribute or None,
    line); computed once per code object (a function traced again reads the same)."""
    found = _READS.get(code)
    if found is not None:
        return found
    found = []
    for code_object in _codes(code):
        previous = None
        for ins in dis.get_instructions(code_object):
            line = ins.positions.lineno if ins.positions is not None else None
            if line is None:
                previous = None
                continue
            if ins.opname == "LOAD_ATTR" and previous is not None:
                found.append((previous[0], previous[1], ins.argval, line))
            previous = None
            kind = _LOADS.get(ins.opname)
            if kind is not None:
                previous = (kind, ins.argval)
                if kind != "local":
                    found.append((kind, ins.argval, None, line))
    _READS[code] = found
    return found


def _watch_attribute(watches: dict, obj: Any, attr: str, file: str, line: int) -> None:
    """Watch `obj.attr` if `obj` is an instance of the user's (not a module, class or array)."""
    if isinstance(obj, (*_PLAIN, types.ModuleType, type, types.FunctionType, list, dict, tuple)):
        return
    if hasattr(type(obj), "__autograph_tensor__") or getattr(obj, "__autograph_function__", False):
        return
    try:
        value = getattr(obj, attr)
        ref = weakref.ref(obj)
    except (AttributeError, TypeError):
        return
    if _plain(value) and not isinstance(getattr(type(obj), attr, None), property):
        key = ("attribute", id(obj), attr)
        watches.setdefault(key, Watch("attribute", f"{type(obj).__name__}.{attr}", ref, value, file, line))


def _codes(code: types.CodeType) -> list[types.CodeType]:
    """`code` and the code of the functions and comprehensions nested in it."""
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.extend(_codes(const))
    return found


def _plain(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value) and bool(value)
    return isinstance(value, _PLAIN)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (np.ndarray, np.generic)):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=True))
    try:
        return bool(a == b)
    except Exception:
        return False


def check(name: str, watches: list[Watch]) -> None:
    """Warn once per watch whose value has changed since the trace; then watch the new value."""
    for watch in watches:
        now = watch.current()
        if now is watch.value:
            continue
        if not watch.warned and not _same(now, watch.value):
            watch.warned = True
            warnings.warn_explicit(_message(name, watch, now), CapturedValueWarning, watch.file, watch.line,
                                   module=watch.file.rpartition("/")[2].removesuffix(".py"), registry={})
        watch.value = now  # the fast call tests this: it holds again until the next change


def _message(name: str, watch: Watch, now: Any) -> str:
    what = {"global": "the global", "closure": "the closure variable", "attribute": "the attribute"}[watch.kind]
    shown = "(deleted)" if now is _MISSING else _short(now)
    return (
        f"{what} {watch.name!r}, read at {watch.file}:{watch.line} while {name} traced, is now "
        f"{shown}; the graph still uses {_short(watch.value)}, the value it was traced with.\n"
        f"A Python value is a constant of the trace. Pass it as an argument (a NumPy value, so "
        f"that it is an input of the graph), keep it in an ag.Variable, or trace anew (see the "
        f"guide's 'Depending on Python global and free variables')."
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def fast_tests(watches: list[Watch], bind: Callable[[str, Any], str]) -> list[str] | None:
    """Tests for a fast call that are true when a watched global, cell or attribute no longer
    holds the value last seen (None: a watch the fast call cannot test; none so far)."""
    tests = []
    for watch in watches:
        watch_name = bind("WATCH", watch)
        if watch.kind == "attribute":  # the object held weakly: a dead one fails the test
            attr = watch.name.rpartition(".")[2]
            ref = bind("REF", watch.holder)
            tests.append(f"{bind('getattr', getattr)}({ref}(), {attr!r}, {watch_name}) is not {watch_name}.value")
        elif watch.kind == "global":
            tests.append(f"{bind('G', watch.holder)}.get({watch.name!r}) is not {watch_name}.value")
        else:
            tests.append(f"{bind('CELL', watch.holder)}.cell_contents is not {watch_name}.value")
    return tests
