"""`ag.explain(f, *args, **kwargs)`: what became of each statement when `f` traced.

Tracing decides silently: an `if` on a Python value runs as Python, a loop
over a list unrolls, a helper marked do_not_convert is called as is, a
`print` happens once. `explain` traces a fresh copy of `f` (its own cache is
left alone) while collecting what happened, statement by statement, at the
user's file:line:

    >>> print(ag.explain(collatz, np.int64(7)))
    ag.explain(collatz): traced for collatz(n: int64[]), 14 nodes
      collatz.py:5  while  staged     while_loop carrying (n, steps)
      collatz.py:6  if     staged     cond carrying (n)
    functions converted: collatz (collatz.py:3)

Where it comes from: the operators note their decisions while
`runtime.tracing.diagnostics.recording()` is on (an unrolled loop, a call
left as is, staged control flow inside a try/with), and, for the trace of
`explain` only, a profile hook (`sys.setprofile`) watches the operators that
decide between Python and staging (`if_stmt`, `staged_if`, `staged_while`,
`staged_for`, and what a flat elif chain's `if_chain` calls once it chose), the converted functions entered, and `print` and
`list.append` called from converted code. Ordinary traces pay nothing for it.
A trace that fails is explained up to the error, which is the last record.
"""

from __future__ import annotations

import builtins
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

from autograph.converted_call import why_as_is
from autograph.tracing.function import Function
from runtime.ir.origin import (
    Origin,
    graph_origin,
    is_internal_file,
    is_standard_library,
    map_location,
    user_origin,
)
from runtime.operators.if_chain import CHAIN_CODE
from runtime.tracing.diagnostics import Record, recording
from runtime.tracing.fallbacks import TracingSideEffectWarning
from runtime.tracing.staged import is_staged

__all__ = ["Explanation", "Record", "explain"]

_IF_STMT = "runtime.operators.if_stmt"
_CALLERS = ("list_append", "converted_call", "_call_unhashable")  # how converted code calls a method
_STAGED = {"staged_if": "if", "staged_while": "while", "staged_for": "for", "staged_if_exp": "if-else",
           "staged_and": "and", "staged_or": "or"}
_FUNCTIONAL = {"staged_if": "cond", "staged_while": "while_loop", "staged_for": "while_loop",
               "staged_if_exp": "cond (a conditional expression)", "staged_and": "cond (short-circuit)",
               "staged_or": "cond (short-circuit)"}


class Explanation:
    """The records of one explained trace; `str()` is the readable report."""

    def __init__(self, name: str, signature: str, nodes: int | None, records: list[Record],
                 error: BaseException | None = None) -> None:
        self.name, self.signature, self.nodes = name, signature, nodes
        self.records = records
        self.error = error

    def by_outcome(self, outcome: str) -> list[Record]:
        return [r for r in self.records if r.outcome == outcome]

    def __str__(self) -> str:
        size = f", {self.nodes} nodes" if self.nodes is not None else ""
        head = f"ag.explain({self.name}): traced for {self.signature}{size}"
        lines = [head]
        statements = [r for r in self.records if r.outcome not in ("converted", "error")]
        if statements:
            width = max(len(_place(r)) for r in statements)
            for r in statements:
                lines.append(f"  {_place(r):<{width}}  {r.statement:<7} {r.outcome:<14} {r.detail}")
        else:
            lines.append("  no control flow was staged, run as Python or unrolled")
        converted = self.by_outcome("converted")
        if converted:
            lines.append("functions converted: " + ", ".join(f"{r.detail} ({_place(r)})" for r in converted))
        for r in self.by_outcome("error"):
            lines.append(f"the trace failed at {_place(r)}: {r.detail}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Explanation of {self.name}: {len(self.records)} records>"


def _place(record: Record) -> str:
    return f"{record.file.rpartition('/')[2]}:{record.line}"


def explain(f: Callable[..., Any], *args: Any, **kwargs: Any) -> Explanation:
    """Trace `f` (a function or Function) for these arguments (values or TensorSpecs) and report
    what became of each control-flow statement, call and side effect (see the module docstring)."""
    fresh = _fresh_function(f)
    probe = _Probe()
    cf = error = None
    with recording() as noted, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        previous = sys.getprofile()
        sys.setprofile(probe)
        try:
            cf = fresh.get_concrete_function(*args, **kwargs)
        except Exception as raised:  # the report says where the trace failed
            error = raised
        finally:
            sys.setprofile(previous)
    records = _merge(probe.records, noted, caught)
    if error is not None:
        records.append(_error_record(error))
    history = fresh.experimental_get_tracing_history()
    signature = history[-1].signature if history else f"{fresh.__name__}(...)"
    nodes = len(cf.graph.nodes) if cf is not None else None
    return Explanation(fresh.__name__, signature, nodes, _users_only(records), error)


def _fresh_function(f: Any) -> Function:
    """A Function of `f`'s Python function and options with a cache of its own (not strict:
    explain reports the fallbacks strict mode would refuse)."""
    instance, target = None, f
    if isinstance(getattr(f, "__func__", None), Function):  # a BoundFunction: its bound Function
        target = f.__func__
    elif isinstance(f, types.MethodType):
        f, target, instance = f.__func__, f.__func__, f.__self__
    if isinstance(target, Function):
        options = list(target._options)
        options[4], options[5] = False, False  # strict, check
        owner = target._instance() if target._instance is not None else instance
        return Function(target._func, *options, _instance=owner)
    return Function(f, _instance=instance)


def _merge(probed: list[Record], noted: list[Record], caught: list) -> list[Record]:
    """Both kinds of records in order of line (each statement once), side effects from warnings."""
    records = list(probed) + list(noted)
    for w in caught:
        if issubclass(w.category, TracingSideEffectWarning):
            first = str(w.message).partition("\n")[0].partition(f" at {w.filename}:")[0]
            records.append(Record(w.filename, w.lineno, "call", "side-effect", first))
    seen: set = set()
    unique = []
    for r in records:
        key = (r.file, r.line, r.statement, r.outcome, r.detail)
        if key not in seen:
            seen.add(key)
            unique.append(r)
    order = {}
    for r in unique:
        order.setdefault(r.file, len(order))
    return sorted(unique, key=lambda r: (r.outcome == "converted", order[r.file], r.line))


def _users_only(records: list[Record]) -> list[Record]:
    return [r for r in records if not is_internal_file(r.file) and not r.file.startswith("<")]


def _error_record(error: BaseException) -> Record:
    origin = None
    tb = error.__traceback__
    while tb is not None:  # the innermost user line of the traceback
        o = map_location(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if o is not None and not is_internal_file(o.file):
            origin = o
        tb = tb.tb_next
    first = f"{type(error).__name__}: {str(error).partition(chr(10))[0]}"
    if origin is None:
        return Record("<unknown>", 0, "trace", "error", first)
    return Record(origin.file, origin.line, "trace", "error", first)


class _Probe:
    """The profile hook of explain's trace: decisions the operators make without noting them."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self._seen_code: set = set()

    def __call__(self, frame: types.FrameType, event: str, arg: Any) -> None:
        try:
            if event == "call":
                self._call(frame)
            elif event == "c_call":
                self._c_call(frame, arg)
        except Exception:  # a probe must never break the trace it watches
            pass

    def _call(self, frame: types.FrameType) -> None:
        code = frame.f_code
        caller = frame.f_back
        if caller is not None and caller.f_code is CHAIN_CODE:
            self._chain_arms(frame, caller.f_locals)
        module = frame.f_globals.get("__name__", "")
        if code.co_name == "if_stmt" and module == _IF_STMT:
            cond = frame.f_locals.get("cond")
            if not is_staged(cond):
                kind = type(cond).__name__
                self._add("if", "python", f"the condition is a Python {kind} ({_short(cond)}): "
                          f"only the branch it chose was traced")
        elif code.co_name in _STAGED and module.startswith("runtime.operators.staged_"):
            names = frame.f_locals.get("names") or ()
            carrying = f" carrying ({', '.join(names)})" if names else ""
            self._add(_STAGED[code.co_name], "staged", f"{_FUNCTIONAL[code.co_name]}{carrying}")
        elif code.co_name != "call_as_is" and _called_as_is(frame):
            self._unconverted(frame)
        elif code.co_filename.startswith("<autograph: ") and code not in self._seen_code:
            self._seen_code.add(code)
            origin = map_location(code.co_filename, code.co_firstlineno)
            text = origin.text.strip() if origin is not None else ""
            if origin is not None and text.startswith(("def ", "async def ", "@")):
                self.records.append(Record(origin.file, origin.line, "def", "converted", code.co_name))

    def _unconverted(self, frame: types.FrameType) -> None:
        """A user function converted_call called directly (do_not_convert, no control flow)."""
        func = frame.f_back.f_locals.get("f")
        caller = frame.f_back.f_back
        origin = map_location(caller.f_code.co_filename, caller.f_lineno) if caller is not None else None
        if origin is not None and isinstance(func, types.FunctionType):
            why = why_as_is(func)
            self.records.append(Record(origin.file, origin.line, "call", "unconverted",
                                       f"{func.__qualname__} runs as Python: {why}"))

    def _c_call(self, frame: types.FrameType, function: Any) -> None:
        if function is builtins.print:
            self._add("call", "side-effect", "print runs once, while tracing (ag.print runs at every call)")
        elif (
            getattr(function, "__name__", "") == "append"
            and type(getattr(function, "__self__", None)) is list
            and (frame.f_code.co_filename.startswith("<autograph: ") or frame.f_code.co_name in _CALLERS)
        ):
            self._add("call", "side-effect", "list.append runs while tracing only: the graph does "
                      "not append (use an ag.TensorArray, or return the values)")

    def _chain_arms(self, frame: types.FrameType, chain: dict) -> None:
        """A flat elif chain (runtime.operators.if_chain) calls a body, its else or a staged arm once
        its Python tests chose: one record per arm it asked, at the arm's line, as nested ifs made."""
        arms, start, index = chain.get("arms"), chain.get("start"), chain.get("index")
        if arms is None or start is None or index is None:
            return
        code = frame.f_code
        if code.co_name == "_staged":
            last = index - 3  # the staged arm is staged_if's record
        elif code is getattr(arms[index + 1], "__code__", None) or code is getattr(arms[-1], "__code__", None):
            last = index  # its body, or the last else
        else:
            return  # a test being asked, or a helper of the operator
        for at in range(start, last + 1, 3):
            cond = chain.get("cond") if at == index else False
            test = arms[at].__code__
            detail = f"the condition is a Python {type(cond).__name__} ({_short(cond)}): only the branch it chose was traced"
            self._add("if", "python", detail, map_location(test.co_filename, test.co_firstlineno))

    def _add(self, statement: str, outcome: str, detail: str, origin: Origin | None = None) -> None:
        origin = origin or user_origin(3)
        if origin is not None and graph_origin(origin.file, origin.line) is None:
            if statement == "if" and outcome == "python" and detail.startswith("the condition is"):
                text = origin.text.strip()
                for keyword in ("if ", "elif "):
                    if text.startswith(keyword) and text.endswith(":"):
                        condition = text[len(keyword):-1].strip()
                        detail = detail.replace("the condition is", f"the condition `{condition}` is", 1)
            if statement in ("if", "if-else") and outcome == "staged":
                first = origin.text.strip().split(" ", 1)[0]  # `if` with returns stages as if-else
                statement = {"if": "if", "elif": "if"}.get(first, statement)
            self.records.append(Record(origin.file, origin.line, statement, outcome, detail))


def _called_as_is(frame: types.FrameType) -> bool:
    """Whether `frame` is a user function's that converted_call itself called (left as is)."""
    caller = frame.f_back
    return (
        caller is not None
        and caller.f_code.co_name in ("converted_call", "_call_unhashable")
        and caller.f_globals.get("__name__") == "autograph.converted_call"
        and not is_internal_file(frame.f_code.co_filename)
        and not frame.f_code.co_filename.startswith("<")
        and not is_standard_library(frame.f_code.co_filename)
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
