"""Programs to save and load: guide examples and staged-fuzzer programs with Variables,
TensorArrays and nested loops, each with the calls to make.

A `CorpusProgram` is a module's source, the name of the Function in it to save, and
a list of argument tuples (tests/autograph/saved_records.py makes and records them).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.autograph.staged_programs import PRELUDE, staged_inputs, staged_programs

__all__ = ["CorpusProgram", "guide_programs", "fuzzer_programs"]


@dataclass
class CorpusProgram:
    name: str
    source: str
    function: str  # the module attribute to save (a Function, or an object with Functions)
    calls: list  # argument tuples; for an object, (method name, args) pairs


_GUIDE = PRELUDE + '''

@ag.function
def add(a, b):
    return a + b


@ag.function
def dense_layer(x, w, b):
    return add(np.matmul(x, w), b)


@ag.function
def collatz(n):
    steps = np.int64(0)
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@ag.function
def sum_even(items):
    s = np.int64(0)
    for c in items:
        if c % 2 > 0:
            continue
        s += c
    return s


@ag.function
def fizzbuzz(n):
    for i in ag.range(1, n + 1):
        if i % 15 == 0:
            ag.print("FizzBuzz")
        elif i % 3 == 0:
            ag.print("Fizz")
        elif i % 5 == 0:
            ag.print("Buzz")
        else:
            ag.print(i)
    return n


@ag.function
def train_or_not(x, training=True):
    if training:
        return x * 2.0
    return x


@ag.function(input_signature=(ag.TensorSpec(shape=[None], dtype=np.int32),))
def next_collatz(x):
    ag.print("Tracing with", x)
    return np.where(x % 2 == 0, x // 2, 3 * x + 1)


@ag.function
def running_sums(x):
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    total = np.float64(0.0)
    for i in ag.range(len(x)):
        total = total + x[i]
        ta = ta.write(i, total)
    return ta.stack()


v = ag.Variable(1.0)


@ag.function
def accumulate(x):
    return v.assign_add(x)


@ag.function
def power(x, y):
    result = np.eye(10, dtype=np.int32)
    for _ in ag.range(y):
        result = np.matmul(x, result)
    return result


@ag.function
def sum_to_squares(n):
    total = np.int64(0)
    i = np.int64(0)
    while i < n:
        j = np.int64(0)
        while j < i:
            total += i * j
            j += 1
        i += 1
    return total


class Counter:
    def __init__(self):
        self.count = ag.Variable(np.int64(0), name="count")
        self.scale = ag.Variable(np.float32(2.0), name="scale")

    @ag.function
    def step(self, x):
        self.count.assign_add(1)
        if np.sum(x) > 0:
            return x * self.scale
        return x - self.scale

    @ag.function
    def reset(self):
        self.count.assign(0)
        return self.count.read_value()


counter = Counter()


@ag.function
def first_negative(x):
    for i in ag.range(len(x)):
        if x[i] < 0:
            return i
    return np.int64(-1)


@ag.function
def functional(n):
    i, total = ag.while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t + i * i), (np.int64(0), np.int64(0)))
    return ag.cond(total > 10, lambda: total - 10, lambda: total)


@ag.function
def unrolled(x, times):
    for _ in range(times):
        x = x * 2 + 1
    return x


@ag.function
def structures(inputs):
    out = {"sum": inputs["a"] + inputs["b"][0], "pair": (inputs["b"][1], np.max(inputs["a"]))}
    while out["pair"][1] > 0:
        out["pair"] = (out["pair"][0] * 2, out["pair"][1] - 1)
    return out, [np.min(inputs["a"])]
'''


def guide_programs() -> list[CorpusProgram]:
    """The guide's examples as Functions with the calls the guide makes."""
    f64 = np.float64
    return [
        CorpusProgram("add", _GUIDE, "add", [(np.ones((2, 2)), np.ones((2, 2))), (np.int64(1), np.int64(2))]),
        CorpusProgram("dense_layer", _GUIDE, "dense_layer",
                      [(np.ones((3, 2)), np.full((2, 2), 2.0), np.full(2, 0.5))]),
        CorpusProgram("collatz", _GUIDE, "collatz", [(np.int64(27),), (np.int64(1),), (np.int64(6),)]),
        CorpusProgram("sum_even", _GUIDE, "sum_even", [(np.array([10, 12, 15, 20], np.int64),), (np.zeros(0, np.int64),)]),
        CorpusProgram("fizzbuzz", _GUIDE, "fizzbuzz", [(np.int64(15),), (np.int64(4),)]),
        CorpusProgram("train_or_not", _GUIDE, "train_or_not",
                      [(np.float64(3.0), True), (np.float64(3.0), False), (np.float64(-1.5), True)]),
        CorpusProgram("next_collatz", _GUIDE, "next_collatz",
                      [(np.array([1, 2], np.int32),), (np.array([1, 2, 3, 4, 5], np.int32),)]),
        CorpusProgram("running_sums", _GUIDE, "running_sums", [(np.array([1.5, 2.0, -1.0]),), (np.zeros(0),)]),
        CorpusProgram("accumulate", _GUIDE, "accumulate", [(f64(1.0),), (f64(2.5),), (f64(-0.5),)]),
        CorpusProgram("power", _GUIDE, "power",
                      [(np.eye(10, dtype=np.int32) * 2, np.int64(3)), (np.eye(10, dtype=np.int32), np.int64(0))]),
        CorpusProgram("sum_to_squares", _GUIDE, "sum_to_squares", [(np.int64(6),), (np.int64(0),)]),
        CorpusProgram("first_negative", _GUIDE, "first_negative",
                      [(np.array([1.0, 2.0, -3.0]),), (np.array([1.0, 2.0, 3.0]),), (np.zeros(0),)]),
        CorpusProgram("functional", _GUIDE, "functional", [(np.int64(5),), (np.int64(2),), (np.int64(0),)]),
        CorpusProgram("unrolled", _GUIDE, "unrolled", [(np.float32(1.5), 3), (np.float32(1.5), 0), (np.float32(-1), 3)]),
        CorpusProgram("structures", _GUIDE, "structures", [
            ({"a": np.array([1, 5, 2]), "b": (np.int64(3), np.int64(1))},),
            ({"a": np.array([-1, -5, -2]), "b": (np.int64(0), np.int64(7))},),
        ]),
        CorpusProgram("counter", _GUIDE, "counter", [
            ("step", (np.float32([1, 2]),)), ("step", (np.float32([-3, 1]),)), ("reset", ()),
            ("step", (np.float32([1, 2, 3]),)),
        ]),
    ]


# Around each fuzzer program: a TensorArray filled by nested staged loops, Variables
# updated at every call, and the program's own result.
_WRAPPER = '''

calls = ag.Variable(np.int64(0), name="calls")
total = ag.Variable(np.float64(0.0), name="total")


@ag.function
def saved({params}):
    count = np.sum(np.ones_like(u)).astype(np.int64)
    ta = ag.TensorArray(np.float64, size=0, dynamic_size=True)
    k = np.int64(0)
    for i in ag.range(count):
        for j in ag.range(2):
            ta = ta.write(k, u[i] * (j + 1))
            k += 1
    calls.assign_add(1)
    result = f({params})
    total.assign_add(np.sum(np.where(np.isfinite(ta.stack()), ta.stack(), 0.0)))
    return result, ta.stack(), calls.read_value(), total.read_value()
'''


def fuzzer_programs(count: int) -> list[CorpusProgram]:
    """`count` programs from the staged fuzzer's generator (the same ones every run)."""
    programs: list[CorpusProgram] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def collect(data):
        program = data.draw(staged_programs())
        inputs = data.draw(st.lists(staged_inputs(program.kinds), min_size=2, max_size=3))
        params = re.search(r"\ndef f\(([^)]*)\)", program.source).group(1)
        source = program.source + textwrap.dedent(_WRAPPER).format(params=params)
        programs.append(CorpusProgram(f"fuzz{len(programs)}", source, "saved", [tuple(i) for i in inputs]))

    collect()
    return programs
