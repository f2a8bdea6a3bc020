"""A pytest plugin that records every call of a Function the guide's tests make (and the
guide's examples as bench/corpus/guide.py traces them), then saves each Function and
replays its calls live, for the round trip of every guide example.

Run as `pytest tests/guide -p tests.autograph.guide_recorder` with AUTOGRAPH_GUIDE_RECORD set
to an empty directory. At the end of the session it writes there:

- `saved/<n>/`: each Function called at least once with plain arguments, saved;
- `jobs.pkl`: per saved Function (name, saved directory, calls, live records), the calls
  made again live on the Function just after it was saved (so with the saved Variable values);
- `stats.json`: how many Functions and calls there were and why any were left out.

Calls are recorded only when they return (a call the guide makes to show an error has no
trace to save) and only outside traces and eager GradientTapes (those run inline, untraced). Arguments must be plain data (arrays, numbers, strings, None and tuples,
lists and dicts of them) to be sent to another process; the rest are counted and left out.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import pickle
import shutil
from collections import Counter
from pathlib import Path

import numpy as np

import autograph as ag
from autograph.tracing.function import Function
from autograph.tracing.keys import Identity
from runtime.backends.export.saved_write import collect_variables
from runtime.ir.structure import flatten, map_structure
from runtime.tracing.eager_tape import active_recorder
from runtime.tracing.trace_context import graph_being_built
from runtime.tracing.variables import Variable
from tests.autograph.saved_records import SavedNamedtuple, SavedVariable, run_calls

_PLAIN = (np.ndarray, np.generic, int, float, complex, bool, str, bytes, type(None))

_calls: dict[int, list] = {}  # id(Function) -> [Function, instance or None, [(args, kwargs)]]
_left_out: Counter = Counter()
_depth = [0]
_original_call = Function.__call__


def _plain(value) -> str | None:
    """Why `value` cannot be sent to another process, or None when it can."""
    leaves, _ = flatten(value)
    for leaf in leaves:
        if isinstance(leaf, Variable):
            continue
        if not isinstance(leaf, _PLAIN) or (isinstance(leaf, np.ndarray) and leaf.dtype == object):
            return type(leaf).__name__
    return None


def _copy(value):
    """A copy of the arguments `value` (arrays may change later), sharing its Variables."""
    return map_structure(lambda leaf: leaf if isinstance(leaf, Variable) else copy.deepcopy(leaf), value)


def _variables(good: list) -> list:
    """The Variables of the saved directory in its order: those the graphs use, then arguments."""
    found = collect_variables([cf.graph for cf in good])
    for cf in good:
        for part in cf.in_plan:
            variable = part.ref() if type(part) is Identity else None
            if isinstance(variable, Variable) and all(variable is not v for v in found):
                found.append(variable)
    return found


def _without_classes(value):
    """`value` with each namedtuple a SavedNamedtuple: the loading process has not the guide's
    classes to unpickle, and passes namedtuples of its own with the same fields."""
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return SavedNamedtuple(type(value).__name__, type(value)._fields, _without_classes(tuple(value)))
    if type(value) is tuple:
        return tuple(_without_classes(v) for v in value)
    if type(value) is list:
        return [_without_classes(v) for v in value]
    if type(value) is dict:
        return {k: _without_classes(v) for k, v in value.items()}
    return value


def _markers(call: tuple, variables: list) -> tuple:
    """`call` with each Variable replaced by its SavedVariable."""
    def mark(leaf):
        if isinstance(leaf, Variable):
            return SavedVariable(next(i for i, v in enumerate(variables) if v is leaf))
        return leaf
    return map_structure(mark, call)


def _recorder(original, specs_only_ok: bool):
    def recording(self, *args, **kwargs):
        top = _depth[0] == 0 and graph_being_built() is None and active_recorder() is None
        if top:
            saved_args, saved_kwargs = _copy((args, kwargs))
        _depth[0] += 1
        try:
            result = original(self, *args, **kwargs)
        finally:
            _depth[0] -= 1
        if top and specs_only_ok and not args and not kwargs:
            top = False  # an input_signature's trace: no values to call with
        if top:
            why = _plain((saved_args, saved_kwargs))
            if why is not None:
                if not (specs_only_ok and why == "TensorSpec"):  # a signature, not values to call with
                    _left_out[f"an argument is a {why}"] += 1
            else:
                instance = None if self._instance is None else self._instance()
                entry = _calls.setdefault(id(self), [self, instance, []])
                entry[2].append((saved_args, saved_kwargs))
        return result

    return recording


def pytest_configure(config) -> None:
    # Every call goes the general way (no hot class replaces __call__), through the recorder;
    # get_concrete_function with values counts as a call with them (the bench's guide cases).
    Function._use = lambda self, fast: None
    Function.__call__ = _recorder(_original_call, False)
    Function.get_concrete_function = _recorder(Function.get_concrete_function, True)


def _saveable(function: Function, directory: Path) -> tuple[list, str | None]:
    """The traces of `function` that save, and why the others do not."""
    good, why = [], None
    for cf in list(function._traces):
        try:
            ag.saved_model.save(cf, directory)
            good.append(cf)
        except ag.saved_model.SaveError as error:
            why = str(error).split(";")[0]
        shutil.rmtree(directory, ignore_errors=True)
    return good, why


def _bench_guide() -> None:
    """The guide's examples as bench/corpus/guide.py traces them (for node counts)."""
    from bench.corpus import guide

    with contextlib.redirect_stdout(io.StringIO()):
        for _, build in guide.cases():
            build()


def pytest_sessionfinish(session, exitstatus) -> None:
    _bench_guide()
    _depth[0] += 1  # what follows (saving, replaying) is not recorded
    out = Path(os.environ["AUTOGRAPH_GUIDE_RECORD"])
    jobs, stats = [], {"functions": 0, "saved": 0, "calls": 0, "traces": 0, "not_saved": {},
                       "calls_left_out": dict(_left_out), "retraced_on_replay": 0}
    for number, (function, _instance, calls) in enumerate(_calls.values()):
        stats["functions"] += 1
        name = f"{function.__module__}.{function.__qualname__}#{number}"
        directory = out / "saved" / str(number)
        good, why = _saveable(function, directory)
        if not good:
            stats["not_saved"][name] = why or "no trace"
            continue
        if len(good) < len(function._traces):
            stats["not_saved"][name] = f"{len(function._traces) - len(good)} traces: {why}"
        ag.saved_model.save(function, directory, signatures=good)
        traces = len(function._traces)
        kept = [c for c in calls if function.get_concrete_function(*c[0], **c[1]) in good]
        left = stats["calls_left_out"]
        left["its trace does not save"] = left.get("its trace does not save", 0) + len(calls) - len(kept)
        calls = kept
        variables = _variables(good)
        calls = [_markers(call, variables) for call in calls]
        live = run_calls(function, calls, keywords=True, variables=variables)
        if len(function._traces) != traces:  # a replay traced anew: no saved trace has it
            stats["retraced_on_replay"] += 1
            continue
        stats["saved"] += 1
        stats["calls"] += len(calls)
        stats["traces"] += len(good)
        jobs.append((name, str(directory), _without_classes(calls), live))
    (out / "jobs.pkl").write_bytes(pickle.dumps(jobs))
    (out / "stats.json").write_text(json.dumps(stats, indent=1))
