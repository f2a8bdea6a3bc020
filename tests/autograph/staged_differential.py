"""Run a program as written and as `ag.function(f)`, and judge the difference.

Staged mode is faithful (DESIGN.md): on the same NumPy values the graph
computes what the original computes. `judge` returns the first way a staged
outcome breaks that, or None:

- the Function returned: the original must have returned too, values of the
  same structure, dtype, shape and value (NaN equal to NaN), and `ag.print`
  must have printed the same lines, at the first call and at the second (the
  cached trace). Values are compared exactly: the compiled graph calls the
  same NumPy functions on the same operands in the same order as the
  original (a loop accumulates item by item in both, `np.sum` reduces a whole
  array in both), and the optimiser only folds constants, never reassociates,
  so any difference in the last bit is a bug, not rounding.
- the Function raised one of our errors (StagingError, ...): staging was
  refused, which is allowed, but the message must name the user's file and
  a line of `f`;
- the Function raised anything else: the original must have raised the same
  type (an index past an empty vector's end raises IndexError both ways), and
  printed at least what the Function printed (an error while tracing stops
  before the graph runs, one while the graph runs after the prints before
  it); a KeyError or AttributeError out of our own code is a bug.

A 0-d array and a NumPy or Python scalar of the same dtype are one value:
the graph returns scalars where the original may hold a 0-d input.
"""

from __future__ import annotations

import contextlib
import copy
import io
import re
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from runtime.ir.errors import AutographError
from tests.autograph.differential import TimedOut, _same_error, _time_limit

__all__ = ["StagedOutcome", "TimedOut", "run_quietly", "judge", "same_values", "names_user_line",
           "as_arrays", "as_literals", "staged_report"]


@dataclass
class StagedOutcome:
    """What one call did: its result or exception, the last frames of the
    exception's traceback, and what it printed."""

    value: object = None
    error: type[BaseException] | None = None
    message: str = ""
    where: str = ""
    stdout: str = ""
    seconds: float = 0.0

    def describe(self) -> str:
        if self.error is None:
            return f"returned {self.value!r}; printed {self.stdout!r}"
        where = f"\n{self.where}" if self.where else ""
        return f"raised {self.error.__name__}: {self.message}; printed {self.stdout!r}{where}"


def run_quietly(func: Callable, args: tuple, timeout: float | None = None) -> StagedOutcome:
    """Call `func` on a private copy of `args`, capturing stdout, with NumPy's
    floating point warnings off (inf and NaN are values here, not mistakes);
    raises TimedOut after `timeout` seconds."""
    stdout, outcome = io.StringIO(), StagedOutcome()
    start = time.perf_counter()
    with (contextlib.redirect_stdout(stdout), _time_limit(timeout), np.errstate(all="ignore"),
          warnings.catch_warnings()):
        warnings.simplefilter("ignore")
        try:
            outcome.value = func(*copy.deepcopy(args))
        except Exception as error:  # noqa: BLE001 - any exception is an outcome to judge
            outcome.error, outcome.message = type(error), str(error)
            outcome.where = "".join(traceback.format_tb(error.__traceback__)[-3:])
    outcome.seconds = time.perf_counter() - start
    outcome.stdout = stdout.getvalue()
    return outcome


def same_values(a: object, b: object) -> bool:
    """Equal structure, and leaves of equal dtype, shape and value (NaN equals NaN)."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same_values(x, y) for x, y in zip(a, b)))
    if a is None or b is None:
        return a is b
    x, y = np.asarray(a), np.asarray(b)
    return (x.dtype == y.dtype and x.shape == y.shape
            and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))


def names_user_line(message: str, path: str, first: int, last: int) -> bool:
    """Whether `message` names `path` at a line from `first` to `last`."""
    name = re.escape(path.rsplit("/", 1)[-1])
    return any(first <= int(line) <= last for line in re.findall(rf"{name}:(\d+)", message))


def judge(original: StagedOutcome, staged: StagedOutcome, lines: tuple[str, int, int]) -> str | None:
    """The first way `staged` breaks faithfulness to `original`, or None;
    `lines` is the program's path and the first and last line of `f`."""
    if staged.error is not None and issubclass(staged.error, AutographError):
        if names_user_line(staged.message, *lines):
            return None
        return f"our {staged.error.__name__} does not name a line of f"
    if staged.error is not None:
        if original.error is None:
            return f"the Function raised {staged.error.__name__}, the original returned"
        if not _same_error(original.error, staged.error):
            return "different exceptions"
        # an error while tracing comes before the graph runs any ag.print
        if not original.stdout.startswith(staged.stdout):
            return "different printed output"
        return None
    if original.error is not None:
        return "the Function returned, the original raised"
    if not same_values(original.value, staged.value):
        return "different return values"
    if original.stdout != staged.stdout:
        return "different printed output"
    return None


def as_arrays(values: tuple) -> tuple:
    """Plain inputs as the NumPy values a call gets: an int as a 0-d int64
    array, a float as a 0-d float64 array, a list as a float64 vector."""
    return tuple(np.array(v, dtype=np.int64 if isinstance(v, int) else np.float64) for v in values)


def as_literals(inputs: list[tuple]) -> str:
    """`inputs` as text that as_arrays turns back into them (with math's inf and nan)."""
    return repr([tuple(a.tolist() for a in args) for args in inputs])


def staged_report(headline: str, source: str, inputs: list[tuple], function_start: int) -> str:
    """A failure message that is enough to reproduce it: the headline (what
    differed, for which call, both outcomes), every input, the whole program,
    and `f` as a REGRESSIONS entry of test_staged_differential.py."""
    lines = source[function_start:].strip("\n").split("\n")
    body = "\n".join("        " + line if line else "" for line in lines)
    entry = f'    (\n        """\n{body}\n        """,\n        {as_literals(inputs)},\n    ),'
    return (f"{headline}\ninputs: {as_literals(inputs)}\n"
            f"--- program ---\n{source.rstrip()}\n"
            f"--- as a regression (REGRESSIONS in test_staged_differential.py) ---\n{entry}")
