"""Run a program's original and converted function side by side.

Python mode must be exact (DESIGN.md): a converted function called with plain
values returns what the original returns, prints the same lines in the same
order, and raises the same exception type. `compare` reports the first
difference as readable text, or None.
"""

from __future__ import annotations

import contextlib
import copy
import io
import itertools
import math
import signal
import sys
import textwrap
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from runtime.ir.errors import AutographError

__all__ = ["Outcome", "TimedOut", "load", "unload", "run", "compare", "same_value", "report"]

_counter = itertools.count()


@dataclass
class Outcome:
    """What one call did: its result or exception type, and what it printed."""

    value: object = None
    error: type[BaseException] | None = None
    message: str = ""
    stdout: str = ""
    seconds: float = 0.0

    def describe(self) -> str:
        result = (f"raised {self.error.__name__}: {self.message}" if self.error
                  else f"returned {self.value!r}")
        return f"{result}; printed {self.stdout!r}"


def report(headline: str, source: str, inputs: list[tuple], function_start: int = 0) -> str:
    """A failure message that is enough to reproduce it: the headline (what
    differed, for which call, both outcomes), every input, the whole program,
    and the program from `function_start` on as a `REGRESSIONS` entry of
    test_differential.py, ready to paste."""
    body = textwrap.indent(source[function_start:].strip("\n"), " " * 8)
    entry = f'    (\n        """\n{body}\n        """,\n        {inputs!r},\n    ),'
    return (f"{headline}\ninputs: {inputs!r}\n"
            f"--- program ---\n{source.rstrip()}\n"
            f"--- as a regression (REGRESSIONS in test_differential.py) ---\n{entry}")


def load(source: str, directory: Path, name: str = "f") -> Callable:
    """The function `name` of a fresh module holding `source`, written to a
    real file so the converter can read it back like any user module."""
    module_name = f"fuzz_program_{next(_counter)}"
    path = directory / f"{module_name}.py"
    path.write_text(source)
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    sys.modules[module_name] = module
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module.__dict__[name]


def unload(func: Callable) -> None:
    """Forget the module `load` made, so long runs do not accumulate them."""
    sys.modules.pop(func.__module__, None)


class TimedOut(BaseException):
    """A call ran past its time limit (a BaseException, so no `except
    Exception` in the program under test swallows it)."""


@contextlib.contextmanager
def _time_limit(seconds: float | None):
    if not seconds:
        yield
        return

    def expire(signum, frame):
        raise TimedOut(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(func: Callable, args: tuple, timeout: float | None = None) -> Outcome:
    """Call `func` on a private copy of `args`, capturing stdout; raises
    TimedOut after `timeout` seconds."""
    stdout = io.StringIO()
    outcome = Outcome()
    start = time.perf_counter()
    with contextlib.redirect_stdout(stdout), _time_limit(timeout):
        try:
            outcome.value = func(*copy.deepcopy(args))
        except Exception as error:  # noqa: BLE001 - any exception is an outcome to compare
            outcome.error = type(error)
            outcome.message = str(error)
    outcome.seconds = time.perf_counter() - start
    outcome.stdout = stdout.getvalue()
    return outcome


def same_value(a: object, b: object) -> bool:
    """Equality that also requires equal types (and dtypes) and treats NaN as
    equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return (a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (float, np.floating)):
        return bool(a == b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return a == b


def _same_error(original: type | None, converted: type | None) -> bool:
    """The same exception type, with one allowance: an unbound name is
    reported as UnboundLocalError for a plain local and as NameError for a
    closure cell, and conversion moves names between the two (branch and
    loop functions read locals as cells). Either way `except NameError`
    catches it, so the two count as one."""
    if original is converted:
        return True
    unbound = {UnboundLocalError, NameError}
    return original in unbound and converted in unbound


def compare(original: Outcome, converted: Outcome) -> str | None:
    """The first difference between the two outcomes, or None."""
    if converted.error is not None and issubclass(converted.error, AutographError):
        return f"the converted function raised our own {converted.error.__name__}"
    if not _same_error(original.error, converted.error):
        return "different exceptions"
    if original.error is None and not same_value(original.value, converted.value):
        return "different return values"
    if original.stdout != converted.stdout:
        return "different printed output"
    return None
