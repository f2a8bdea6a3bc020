"""Random staged programs for differential tests (interpreter vs compiler, optimised or not).

A program is a list of steps over a growing pool of values (two float64[3]
inputs first); integers pick pool entries modulo its size. Steps cover pure
math, constants (so folding has work), repeated expressions (so CSE has
work), unused values (so DCE has work), conds and while loops that capture
pool values, prints and variable updates (effects that must survive).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from runtime.tracing.constant import constant
from runtime.tracing.control_flow import cond, while_loop
from runtime.tracing.effects import print_

__all__ = ["programs", "run_program"]

BINARY = {
    "add": np.add, "subtract": np.subtract, "maximum": np.maximum, "minimum": np.minimum,
    "half_product": lambda a, b: (a * b) * 0.5,
}
UNARY = {"negative": np.negative, "tanh": np.tanh, "abs": np.abs}
CONSTANTS = [0.0, 1.0, -2.5, 0.25]

_index = st.integers(0, 30)
_step = st.one_of(
    st.tuples(st.just("bin"), st.sampled_from(sorted(BINARY)), _index, _index),
    st.tuples(st.just("un"), st.sampled_from(sorted(UNARY)), _index),
    st.tuples(st.just("const"), st.sampled_from(CONSTANTS), st.booleans()),
    st.tuples(st.just("cond"), _index, _index, _index, st.sampled_from(sorted(BINARY))),
    st.tuples(st.just("while"), _index, _index, st.integers(0, 4)),
    st.tuples(st.just("loop_of_cond"), _index, _index, st.integers(0, 3), st.sampled_from(sorted(BINARY))),
    st.tuples(st.just("cond_of_loop"), _index, _index, st.integers(0, 3)),
    st.tuples(st.just("loop_of_loop"), _index, _index, st.integers(0, 3), st.integers(0, 2)),
    st.tuples(st.just("print"), _index),
    st.tuples(st.just("assign"), _index),
)
programs = st.lists(_step, min_size=1, max_size=10)


def run_program(steps: list, x, y, variable=None) -> tuple:
    """Run `steps` on x, y (Tensors inside a trace); returns the last two pool values."""
    pool = [x, y]

    def pick(i):
        return pool[i % len(pool)]

    for step in steps:
        kind = step[0]
        if kind == "bin":
            pool.append(BINARY[step[1]](pick(step[2]), pick(step[3])))
        elif kind == "un":
            pool.append(UNARY[step[1]](pick(step[2])))
        elif kind == "const":
            value = np.full(3, step[1]) if step[2] else np.float64(step[1])
            pool.append(constant(value) + np.zeros(3))
        elif kind == "cond":
            a, b, c, op = pick(step[1]), pick(step[2]), pick(step[3]), BINARY[step[4]]
            pool.append(cond(np.sum(a) > 0, lambda b=b, c=c, op=op: op(b, c), lambda b=b, c=c: np.tanh(c) + b))
        elif kind == "while":
            start, other, count = pick(step[1]), pick(step[2]), step[3]
            body = lambda v, k, other=other: (np.tanh(v + other), k + 1)  # noqa: E731
            pool.append(while_loop(lambda v, k, count=count: k < count, body, (start, 0))[0])
        elif kind == "loop_of_cond":
            pool.append(_loop_of_cond(pick(step[1]), pick(step[2]), step[3], BINARY[step[4]]))
        elif kind == "cond_of_loop":
            pool.append(_cond_of_loop(pick(step[1]), pick(step[2]), step[3]))
        elif kind == "loop_of_loop":
            pool.append(_loop_of_loop(pick(step[1]), pick(step[2]), step[3], step[4]))
        elif kind == "print":
            print_("value", pick(step[1]))
        elif kind == "assign" and variable is not None:
            variable.assign_add(np.sum(pick(step[1])))
            pool.append(pick(step[1]) + variable)
    return pool[-1], pool[-2]


def _loop_of_cond(start, other, count, op):
    """A loop whose body branches on the loop variable and captures `other` two levels down."""

    def body(v, k):
        twice = other + other
        branch = cond(np.sum(v) > 0, lambda: op(v, twice) * 0.5, lambda: np.tanh(v - twice))
        print_("step", k)
        return np.tanh(branch), k + 1

    return while_loop(lambda v, k: k < count, body, (start, 0))[0]


def _cond_of_loop(pred_source, other, count):
    """A cond whose taken branch runs a loop over a captured value (the other one does not)."""

    def looping():
        return while_loop(lambda v, k: k < count, lambda v, k: (np.tanh(v * other), k + 1), (other, 0))[0]

    return cond(np.sum(pred_source) < 0, looping, lambda: other - 1.0)


def _loop_of_loop(start, other, count, mode):
    """Nested loops; the outer one uses the inner's first variable (0), both (1) or neither (2)."""

    def inner(v):
        def body(w, unused, k):
            return np.tanh(w + other), unused * 2.0, k + 1

        return while_loop(lambda w, unused, k: k < count, body, (v, v, 0))

    def outer(v, k):
        w, unused, _ = inner(v)
        result = (w, w - unused * 0.25, np.tanh(v))[mode]
        return result, k + 1

    return while_loop(lambda v, k: k < 2, outer, (start, 0))[0]
